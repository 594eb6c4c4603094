/**
 * Escapes that can spell a field name or digits a plain scan would not see. Shared by redact (what is
 * logged) and card-data (what is refused).
 */

// A run of backslashes counts as one: JSON that was itself JSON-encoded writes `\\u0076`. The lookbehind
// starts a match only at the run's first backslash (linear; from every backslash it was quadratic).
const JSON_OR_URL_ESCAPE = /(?<!\\)\\+u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})/g;

/** HTML's numeric character references: `&#52;`, `&#x34;`. */
const HTML_ENTITY = /&#(\d{1,7});|&#x([0-9a-fA-F]{1,6});/g;

/** JSON's \uXXXX and URL's %XX escapes, one layer. */
export function decodeJsonAndUrlEscapes(text: string): string {
  return text.replace(
    JSON_OR_URL_ESCAPE,
    (_match, unicode: string | undefined, percent: string | undefined) =>
      String.fromCharCode(Number.parseInt(unicode ?? percent ?? '', 16)),
  );
}

/** HTML's numeric character references, one layer; a code point beyond Unicode becomes nothing. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(HTML_ENTITY, (_match, decimal: string | undefined, hex: string | undefined) => {
    const code = decimal ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}
