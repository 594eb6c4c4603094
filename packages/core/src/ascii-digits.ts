/**
 * Digits of every script read as ASCII digits: a card number typed on a Persian or Arabic phone
 * keyboard (۴۲۴۲ …, ٤٢٤٢ …), in Devanagari or in fullwidth digits is the same card number, and the
 * card-data rules (card-data.ts, redact.ts) match ASCII `\d` (docs/safety-rules.md#card-data).
 */

/** Any decimal digit that is not ASCII. */
const OTHER_DIGIT = /(?![0-9])\p{Nd}/gu;

/** A decimal digit of any script. */
const ANY_DIGIT = /^\p{Nd}$/u;

/** True when `text` holds a decimal digit outside ASCII (cheap for ASCII-only text). */
export function hasOtherDigits(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range itself is the test.
  if (!/[^\x00-\x7f]/.test(text)) return false;
  OTHER_DIGIT.lastIndex = 0;
  return OTHER_DIGIT.test(text);
}

/**
 * The value of a decimal digit: Unicode lays every script's digits out as one run of ten code points,
 * zero first (runs can follow each other, as the mathematical digits do), so the value is the
 * distance from the start of its run, modulo ten.
 */
function digitValue(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  let start = code;
  while (ANY_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
  return (code - start) % 10;
}

/** `text` with every non-ASCII decimal digit replaced by its ASCII digit; other characters as they are. */
export function asciiDigits(text: string): string {
  return text.replace(OTHER_DIGIT, (char) => String(digitValue(char)));
}
