/**
 * Finds card data in untrusted input before it is stored (docs/SECURITY.md: no card data at rest).
 * Where redact() masks card data for logs, this refuses it: a storefront that sends a card number or a
 * security code in data the platform keeps gets an error naming where it was, and nothing is stored.
 */

import { asciiDigits, hasOtherDigits } from './ascii-digits.js';
import { decodeHtmlEntities, decodeJsonAndUrlEscapes } from './escapes.js';

/**
 * Field names that hold a card number, and those that hold a security code, written lower case without
 * `_` or `-`. One list for refusing card data here and for masking it in redact.ts.
 */
export const CARD_NUMBER_FIELD_NAMES: ReadonlySet<string> = new Set(['cardno', 'cardnumber', 'pan']);
export const SECURITY_CODE_FIELD_NAMES: ReadonlySet<string> = new Set([
  'cardsecuritycode',
  'securitycode',
  'cardcvv',
  'cardcvv2',
  'cardcvc',
  'cardcvc2',
  'cvv',
  'cvv2',
  'cvc',
  'cvc2',
  'cvn',
]);

/** Field names refused in stored input, compared without case, spaces, `_` or `-`. */
const CARD_FIELD_NAMES = new Set([
  'card',
  'primaryaccountnumber',
  ...CARD_NUMBER_FIELD_NAMES,
  ...SECURITY_CODE_FIELD_NAMES,
]);

/**
 * What may stand between a card number's digits (up to three of them): whitespace, the no-break space,
 * dashes (also the typographic ones: hyphen, en and em dash, minus), dots, middle dots and bullets,
 * slashes, underscores, commas, `+` and `|`. Not every punctuation mark: brackets, `;` and `*` would
 * join phone numbers (`+44 (0)20 7946 0006`) and lists into runs that pass Luhn by chance, and `:` the
 * digits of times; those join digits only in a card's own grouping (GROUPED_CARD_SOURCE). Regex
 * source, for a character class.
 */
export const NUMBER_SEPARATOR = '[\\s\\u00a0.,/_+|\\u2010-\\u2015\\u2212\\u00b7\\u2022-]';

/** 13 or more digits with up to three separators between any two: how people write, split and disguise card numbers. */
const DIGIT_RUN = new RegExp(`\\d(?:${NUMBER_SEPARATOR}{0,3}\\d){12,}`, 'g');

/**
 * Any ASCII punctuation or symbol, including what NUMBER_SEPARATOR leaves out (brackets, `;`, `*`, `:`,
 * quotes, `=`), may join the groups of a number written in a card's own grouping (GROUPED_CARD_SOURCE):
 * phone numbers, times and lists do not come in those groups, so the wider set refuses nothing honest
 * that the narrow one lets through. Regex source, for a character class.
 */
export const GROUP_JOINER = '[\\s\\u00a0!-/:-@\\[-`{-~\\u2010-\\u2015\\u2212\\u00b7\\u2022]';

/**
 * What joins a six-digit group to the last one: one to three joiners, but not `***`. That is how a
 * masked number is written (424242***4242), which after a group of four would read as Diners' 4-6-4.
 */
const SHORT_GROUP_JOIN = `(?!\\*\\*\\*)${GROUP_JOINER}{1,3}`;

/**
 * A card number in its printed grouping, whatever joins the groups (one to three GROUP_JOINER
 * characters): 4-4-4-4 with up to three more digits (Visa, Mastercard, most 16–19 digit cards), 4-6-5
 * (American Express) and 4-6-4 (Diners), not followed by another digit. Regex source; what may come
 * before it is the user's to say (card-data: no digit; redaction: a word boundary).
 */
export const GROUPED_CARD_SOURCE =
  `(?:\\d{4}(?:${GROUP_JOINER}{1,3}\\d{4}){3}(?:${GROUP_JOINER}{1,3}\\d{1,3})?` +
  `|\\d{4}${GROUP_JOINER}{1,3}\\d{6}${SHORT_GROUP_JOIN}\\d{4,5})(?!\\d)`;

/** Zero-width and other invisible format characters, which split a number without showing. */
const INVISIBLE = /\p{Cf}/gu;

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

/** One layer of JSON, URL and HTML escapes (escapes.ts). */
function decodeEscapes(text: string): string {
  return decodeHtmlEntities(decodeJsonAndUrlEscapes(text));
}

/** Card numbers start with 2–6 (the banking and financial industries); 1-prefixed runs are times and ids. */
const CARD_START = /^[2-6]/;

/**
 * A card number among the digit groups of one run: whole groups joined (a number is written in whole
 * groups, `4242 4242 4242 4242`), 13–19 digits starting like a card and passing Luhn; or, for one group
 * longer than 16 digits, its first 15 or 16 (a number with its security code glued on). Not every
 * window of every group: most 19-digit ids would then hold a Luhn-valid number by chance.
 */
function runHoldsCardNumber(groups: readonly string[]): boolean {
  for (let first = 0; first < groups.length; first += 1) {
    let digits = '';
    for (let last = first; last < groups.length && digits.length < 19; last += 1) {
      digits += groups[last];
      if (digits.length >= 13 && digits.length <= 19 && CARD_START.test(digits) && passesLuhn(digits)) {
        return true;
      }
    }
    const group = groups[first] ?? '';
    if (group.length > 16 && group.length <= 23 && CARD_START.test(group)) {
      if (passesLuhn(group.slice(0, 15)) || passesLuhn(group.slice(0, 16))) return true;
    }
  }
  return false;
}

const GROUPED_CARD = new RegExp(`(?<!\\d)${GROUPED_CARD_SOURCE}`, 'g');

/**
 * A card number written in a card's grouping (GROUPED_CARD), starting like a card and passing Luhn.
 * Every group is tried as the first (the search goes on one group later, not after the match), so a
 * card after another group of four (`1234:` and then the card's four) is found.
 */
function holdsGroupedCard(text: string): boolean {
  GROUPED_CARD.lastIndex = 0;
  for (let match = GROUPED_CARD.exec(text); match !== null; match = GROUPED_CARD.exec(text)) {
    const digits = match[0].replace(/\D/g, '');
    // Four groups of four followed by a short group: a 17–19 digit card, or a 16-digit one and a
    // short number after it (`…:0005:07`); the pattern takes the longer, so both are judged.
    const card = (length: number) => CARD_START.test(digits) && passesLuhn(digits.slice(0, length));
    if (card(digits.length) || (digits.length > 16 && card(16))) return true;
    GROUPED_CARD.lastIndex = match.index + 1;
  }
  return false;
}

/**
 * True when the text holds a card number: 13–19 digits starting with 2–6 and passing Luhn, written
 * plainly, split by separators or invisible characters, in a card's grouping joined by any punctuation,
 * in the digits of any script, or escaped.
 */
export function containsCardNumber(text: string): boolean {
  let candidate = text.normalize('NFKC').replace(INVISIBLE, '');
  if (hasOtherDigits(candidate)) candidate = asciiDigits(candidate);
  for (let pass = 0; pass < 4; pass += 1) {
    for (const match of candidate.matchAll(DIGIT_RUN)) {
      if (runHoldsCardNumber(match[0].split(/\D+/))) return true;
    }
    if (holdsGroupedCard(candidate)) return true;
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
