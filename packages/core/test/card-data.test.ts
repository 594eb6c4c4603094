import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardNumber, findCardData, passesLuhn } from '../src/index.js';
import { neverReachedGateway } from '../src/network-errors.js';
import { groupedCard } from './support/grouped-card.js';
import { luhnDigit } from './support/luhn.js';

const VISA = '4242424242424242';

describe('findCardData', () => {
  it('finds card numbers in strings, numbers and keys at any depth, naming only the path', () => {
    expect(findCardData({ note: `card ${VISA.replace(/(\d{4})/g, '$1 ').trim()}` })).toBe('data.note');
    expect(findCardData({ a: [{ b: { c: '4000-0000-0000-9995' } }] })).toBe('data.a[0].b.c');
    expect(findCardData({ n: 4242424242424242 })).toBe('data.n');
    expect(findCardData({ [VISA]: 'x' })).toBe('data[key]');
    expect(findCardData('4242%204242%204242%204242')).toBe('data');
    expect(findCardData({ s: '\\u0034242424242424242' })).toBe('data.s');
  });

  it('finds numbers written to slip past a plain scan (found by review)', () => {
    const disguised = [
      '4242  4242  4242  4242',
      '4242 - 4242 - 4242 - 4242',
      '4242\t4242\n4242/4242',
      '4242_4242,4242.4242',
      '4242\u00a04242\u00a04242\u00a04242',
      '4242\u200b4242\u200b4242\u200b4242',
      '４２４２４２４２４２４２４２４２',
      '&#52;242424242424242',
      '&#x34;242424242424242',
      '4242424242424242123',
    ];
    for (const text of disguised) expect(findCardData({ s: text }), JSON.stringify(text)).toBe('data.s');
  });

  it('attack: finds a card number typed in the digits of another script (Persian and Arabic phone keyboards type them)', () => {
    const scripts = [
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢', // Arabic-Indic
      '۴۲۴۲ ۴۲۴۲ ۴۲۴۲ ۴۲۴۲', // Persian
      '४२४२ ४२४२ ४२४२ ४२४२', // Devanagari
      '𝟒𝟐𝟒𝟐𝟒𝟐𝟒𝟐𝟰𝟮𝟰𝟮𝟦𝟤𝟦𝟤', // mathematical digits, three of their runs
    ];
    for (const text of scripts) expect(findCardData({ note: text }), text).toBe('data.note');
    // A year or a house number in those digits is not a card.
    expect(findCardData({ note: 'سنة ٢٠٢٦، منزل ١٢' })).toBeUndefined();
  });

  it('scans a long run of backslashes in linear time (was quadratic)', () => {
    // Not a timing assertion: 200k backslashes finished in seconds only with the linear form.
    expect(findCardData({ s: '\\'.repeat(200_000) })).toBeUndefined();
  });

  it('refuses card and security-code field names whatever their case, separators or value', () => {
    for (const key of [
      'cardNo',
      'card_number',
      'PAN',
      'securityCode',
      'cvv',
      'CVC',
      'card',
      'Card Number',
      'card_cvv',
      // The security-code names redact masks in logs are refused in stored input too (one list).
      'card_cvv2',
      'card-cvc2',
      'CVN',
    ])
      expect(findCardData({ deep: { [key]: 'anything' } })).toMatch(/^data\.deep(\.|\[)/);
    expect(findCardData({ deep: { 'card-security-code': 1 } })).toBe('data.deep["card-security-code"]');
    expect(findCardData({ deep: { cardNo: null } })).toBeUndefined();
  });

  it('keeps ids, phone numbers, amounts and numbers that fail Luhn', () => {
    expect(
      findCardData({
        orderNo: 'payses_01JABCDEF1234567890',
        phone: '+44 20 7946 0000',
        amount: '12345678.90',
        tradeNo: '1526753334131306496',
        notCard: '4242424242424241',
        customerPaymentMethodId: '1690000000000000001',
        // A millisecond time in an email (1-prefixed): never a card, whatever its checksum.
        email: 'failed-1795499241376@example.com',
        luhnValidTime: '1000000000009',
        // Date and time: `:` never joins digits, so its 17 digits are not read as one number.
        deliveredAt: '2026-11-28 03:11:50.123',
        // Brackets do not join digits either: UK and German numbers with the trunk 0 in brackets.
        phones: ['+44 (0)20 7946 0006', '+44 (0)7700 900123', '+49 (0)30 12340009'],
      }),
    ).toBeUndefined();
  });

  it('attack: a card number in its printed grouping is found whatever punctuation joins the groups (brackets, `;`, `*`, `:`, quotes)', () => {
    for (const text of [
      'note 4242:4242:4242:4242',
      '(4242)(4242)(4242)(4242)',
      '[4242] [4242] [4242] [4242]',
      '4242*4242*4242*4242',
      'amex 3782;822463;10005',
      'ref 1234:4242:4242:4242:4242',
      'x4242;4242;4242;4242;',
      // A short number right after it: the pattern's optional fifth group must not hide the card.
      'ref 4242:4242:4242:4242:07',
    ]) {
      expect(containsCardNumber(text), text).toBe(true);
      expect(findCardData({ note: text }), text).toBe('data.note');
    }
    fc.assert(
      fc.property(groupedCard, fc.stringMatching(/^[a-z :(]{0,6}$/), (card, prefix) => {
        expect(containsCardNumber(`${prefix}${card.written}`), card.written).toBe(true);
      }),
    );
  });

  it('keeps phone numbers, times and lists that only the wider joiners would connect', () => {
    expect(
      findCardData({
        phones: ['+44 (0)20 7946 0006', '+49 (0)30 1234 5678', '(0212) 4567-8901', '+1 (415) 555-0132'],
        times: '03:11:50; 04:12:51; 23:59:59',
        // The same groups failing Luhn, or not starting like a card.
        notCards: ['4242:4242:4242:4241', '1234;5678;9012;3456', '(0000)(0000)(0000)(0000)'],
        list: 'sizes 38;40;42;44 qty 2*3*4',
        // A masked number after a group of four is not Diners' 4-6-4 (redaction's own output).
        masked: 'ref 2108, 200000***0003',
      }),
    ).toBeUndefined();
  });

  it('every Luhn-valid 13-19 digit number starting like a card (2-6) is found, however it is separated and wherever it is', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 17 }),
        fc.constantFrom('', ' ', '-', '\u2013', '\u2212', ' \u2022 '),
        fc.string({ maxLength: 8 }).filter((s) => !/\d/.test(s)),
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 4 }),
        (first, rest, separator, prefix, path) => {
          const body = `${first}${rest.join('')}`;
          const digits = body + luhnDigit(body);
          const text = `${prefix} ${digits.split('').join(separator)}`;
          let value: unknown = text;
          for (const key of path.reverse()) value = { [key.replace(/\d/g, 'x')]: value };
          expect(passesLuhn(digits)).toBe(true);
          expect(containsCardNumber(text)).toBe(true);
          expect(findCardData(value)).toBeDefined();
        },
      ),
    );
  });

  it('refuses input nested deeper than anything a storefront sends', () => {
    let value: unknown = 'x';
    for (let i = 0; i < 40; i += 1) value = { a: value };
    expect(findCardData(value)).toBeDefined();
  });
});

describe('network errors', () => {
  it('host or network unreachable can follow a write: not "never sent"', () => {
    expect(neverReachedGateway(Object.assign(new Error('x'), { code: 'EHOSTUNREACH' }))).toBe(false);
    expect(neverReachedGateway(Object.assign(new Error('x'), { code: 'ENETUNREACH' }))).toBe(false);
    expect(neverReachedGateway(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
  });
});
