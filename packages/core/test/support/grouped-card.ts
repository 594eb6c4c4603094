import fc from 'fast-check';
import { luhnDigit } from './luhn.js';

/** What joins a card's groups in the attacks: plain separators, and what the plain set leaves out. */
export const JOINERS = [
  ' ',
  '-',
  '+',
  ' / ',
  ':',
  ';',
  '*',
  ')(',
  '] [',
  '","',
  "'",
  '=',
  '#',
  '~',
  ' : ',
  '(',
  '\\',
];

/** The printed groupings of card numbers: 4-4-4-4, 4-4-4-4-3 (19 digits), 4-6-5 (Amex), 4-6-4 (Diners). */
const GROUPINGS = [
  [4, 4, 4, 4],
  [4, 4, 4, 4, 3],
  [4, 6, 5],
  [4, 6, 4],
] as const;

/** A Luhn-valid card number starting with 2–6, written in one of its groupings with one joiner. */
export const groupedCard = fc
  .tuple(
    fc.constantFrom(...GROUPINGS),
    fc.integer({ min: 2, max: 6 }),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }),
    fc.constantFrom(...JOINERS),
  )
  .map(([grouping, first, rest, joiner]) => {
    const length = grouping.reduce((sum, size) => sum + size, 0);
    const body = `${first}${rest.join('')}`.slice(0, length - 1);
    const digits = body + luhnDigit(body);
    const groups: string[] = [];
    let at = 0;
    for (const size of grouping) {
      groups.push(digits.slice(at, at + size));
      at += size;
    }
    return { digits, written: groups.join(joiner) };
  });
