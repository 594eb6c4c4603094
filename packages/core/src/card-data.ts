/**
 * Finds card data in untrusted input before it is stored (docs/SECURITY.md: no card data at rest).
 * Where redact() masks card data for logs, this refuses it: a storefront that sends a card number or a
 * security code in data the platform keeps gets an error naming where it was, and nothing is stored.
 */

/** Field names that hold a card number or a security code, compared without case, `_` or `-`. */
const CARD_FIELD_NAMES = new Set([
  'card',
  'cardno',
  'cardnumber',
  'pan',
  'primaryaccountnumber',
  'cardsecuritycode',
  'securitycode',
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cvn',
]);

/** 13–19 digits, optionally with one space, dash, dot or `+` between them, not glued to other digits. */
const DIGIT_RUN = /(?<!\d)\d(?:[ .+-]?\d){12,18}(?!\d)/g;

/** JSON's \uXXXX and URL's %XX escapes, which can spell digits a plain scan would not see. */
const ESCAPE = /\\+u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})/g;

/** Deeper input than this is refused as card-like: nothing a storefront sends nests so far. */
const MAX_DEPTH = 16;

function normalizedName(key: string): string {
  return key.toLowerCase().replace(/[\s_-]/g, '');
}

export function isCardFieldName(key: string): boolean {
  return CARD_FIELD_NAMES.has(normalizedName(key));
}

/** The Luhn checksum every card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

function decodeEscapes(text: string): string {
  return text.replace(ESCAPE, (_match, unicode: string | undefined, percent: string | undefined) =>
    String.fromCharCode(Number.parseInt(unicode ?? percent ?? '', 16)),
  );
}

/** True when the text holds a card number: 13–19 digits passing Luhn, written plainly or escaped. */
export function containsCardNumber(text: string): boolean {
  for (let candidate = text, pass = 0; pass < 4; pass += 1) {
    for (const match of candidate.matchAll(DIGIT_RUN)) {
      if (passesLuhn(match[0].replace(/\D/g, ''))) return true;
    }
    const decoded = decodeEscapes(candidate);
    if (decoded === candidate) return false;
    candidate = decoded;
  }
  return true;
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * Where the first card data in `value` is (`data.note.cardNo`), or undefined when there is none: a
 * card field name at any depth, or a card number in any string, number or key. The path names only
 * keys, never the value, so it is safe in an error message.
 */
export function findCardData(value: unknown, path = 'data', depth = 0): string | undefined {
  if (typeof value === 'string') return containsCardNumber(value) ? path : undefined;
  if (typeof value === 'number' || typeof value === 'bigint') {
    return containsCardNumber(String(value)) ? path : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_DEPTH) return path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findCardData(value[index], pathOf(path, index), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const itemPath = pathOf(path, key);
    if (isCardFieldName(key) && item !== undefined && item !== null) return itemPath;
    if (containsCardNumber(key)) return `${path}[key]`;
    const found = findCardData(item, itemPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}
