/** Card redaction (docs/safety-rules.md#card-data): the one implementation used by core, the adapters and the sandbox. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardNumber, redact, redactBody, redactCardNumber, redactText } from '../src/index.js';
import { redactTextFullScan } from '../src/redact.js';
import { groupedCard } from './support/grouped-card.js';
import { luhnDigit } from './support/luhn.js';

const PACKAGE_DIR = join(import.meta.dirname, '..');

describe('redactText: card numbers', () => {
  it('masks card fields in JSON text, whatever the case, spacing or value format', () => {
    expect(redactText('{"cardNo":"4242424242424242","cardExpireYear":"2030"}')).toBe(
      '{"cardNo":"424242***4242","cardExpireYear":"2030"}',
    );
    expect(redactText('{"CardNumber" : "4242 4242 4242 4242"}')).toBe('{"CardNumber" : "424242***4242"}');
    expect(redactText('{"pan":"4000-0025-0000-3155"}')).toBe('{"pan":"400000***3155"}');
    // A number instead of a string, and values too short to be shown at all.
    expect(redactText('{"cardNo": 4000000000009995}')).toBe('{"cardNo": "400000***9995"}');
    expect(redactText('{"cardNo":"4242"}')).toBe('{"cardNo":"***"}');
    expect(redactText('{"cardNo":"4242424242"}')).toBe('{"cardNo":"***4242"}');
    // Already masked values stay as they are.
    expect(redactText('{"cardNo":"424242***4242","pan":"***"}')).toBe(
      '{"cardNo":"424242***4242","pan":"***"}',
    );
  });

  it('masks card numbers in form and query text', () => {
    expect(redactText('cardNo=4242+4242+4242+4242&cardSecurityCode=737&name=Ada')).toBe(
      'cardNo=424242***4242&cardSecurityCode=***&name=Ada',
    );
    // %20 must not add its digits to the card number.
    expect(redactText('/pay?pan=4242%204242%204242%204242&cvv=1')).toBe('/pay?pan=424242***4242&cvv=***');
    expect(redactText('cardNumber=4000000000009995')).toBe('cardNumber=400000***9995');
    expect(redactText('retry with pan=4242 4242 4242 4242 now')).toBe('retry with pan=424242***4242 now');
    // Only whole field names count.
    expect(redactText('span=1&company=2')).toBe('span=1&company=2');
  });

  it('masks bare card numbers with or without spaces and dashes', () => {
    expect(redactCardNumber('card 4242 4242 4242 4242 failed')).toBe('card 424242***4242 failed');
    expect(redactText('card 4242-4242-4242-4242.')).toBe('card 424242***4242.');
    expect(redactText('pan 4000000000009995 here')).toBe('pan 400000***9995 here');
    expect(redactText('amex 3782 822463 10005')).toBe('amex 378282***0005');
    expect(redactText('19 digits 6011111111111111117')).toBe('19 digits 601111***1117');
    expect(redactText('{"note":"paid with 5333302221254276"}')).toBe('{"note":"paid with 533330***4276"}');
    // Twelve digits in a row still count, shown by their last four only.
    expect(redactText('maestro 123456789012')).toBe('maestro ***9012');
  });

  it('keeps IP addresses, dates and amounts joined by dots or slashes readable unless they are shaped like a card', () => {
    for (const text of [
      'from 203.0.113.195 70.41.3.18',
      'listen 192.168.100.200 8443',
      'valid 01.01.2026 31.12.2026',
      'between 2026/11/25 2026/11/26',
      'refund 10000.00 20000.00',
      'ratio 12345.67/23456.78',
    ]) {
      expect(redactText(text), text).toBe(text);
    }
  });

  it('masks a card number with digits glued on after a dot or a slash (a code, an expiry, cents)', () => {
    for (const text of [
      '4242424242424242/123',
      '4242 4242 4242 4242/123',
      '4242.4242.4242.4242.123',
      '4000.0025.0000.3155/737',
      '4242.4242.4242.4242/12/27',
      '4242424242424242.50',
      '0.4242.4242.4242.4242',
    ]) {
      expect(redactText(`paid with ${text}`), text).not.toMatch(/4242.?4242.?4242|0025.?0000/);
    }
  });

  it('attack: masks card data written to slip past the scan: arrays and objects under a card field, JSON encoded thrice, quoted form values (found by review)', () => {
    expect(redactText('{"cardNo":["4242","4242","4242","4242"],"x":1}')).toBe('{"cardNo":"***","x":1}');
    expect(redactText('{"cardSecurityCode":["987"],"a":"b"}')).toBe('{"cardSecurityCode":"***","a":"b"}');
    expect(redactText('{"cvv":{"value":"987"},"a":"b"}')).toBe('{"cvv":"***","a":"b"}');
    const thrice = JSON.stringify(JSON.stringify(JSON.stringify({ cvv: '123', cardNo: '4242424242424242' })));
    const hidden = redactText(thrice);
    expect(hidden).not.toContain('123');
    expect(hidden).not.toContain('4242424242424242');
    // Still the same three layers of JSON, with the values masked.
    expect(JSON.parse(JSON.parse(JSON.parse(hidden)))).toEqual({ cvv: '***', cardNo: '424242***4242' });
    // Hidden to the matching close, however deep and whatever its strings hold (found by the second review).
    expect(redactText('{"cvv": {"a":"}","b":"123"}, "next": "kept"}')).toBe('{"cvv": "***", "next": "kept"}');
    expect(redactText('{"cardNo":{"a":{"b":{"c":"4242424242424242"}}},"x":"kept"}')).toBe(
      '{"cardNo":"***","x":"kept"}',
    );
    const encodedArray = JSON.stringify(JSON.stringify({ cardNo: ['4242', '4242'], keep: 'yes' }));
    expect(JSON.parse(JSON.parse(redactText(encodedArray)))).toEqual({ cardNo: '***', keep: 'yes' });
    // A bracket that closes nothing open does not end the value (malformed on purpose).
    expect(redactText('{"cvv":[}, "987"] , "next": 1}')).toBe('{"cvv":"***" , "next": 1}');
    expect(redactText('cvv="123"&x=1')).toBe('cvv="***"&x=1');
    expect(redactText('card_no: "4242424242424242"')).toBe('card_no: "424242***4242"');
  });

  it('attack: field names repeated over a long text are scanned in linear time (a GraphQL error echoing 200 kB of `?pan:` held the server for seconds; found by review)', () => {
    const hostile = '?pan:'.repeat(40_000);
    expect(redactText(hostile)).toBe(hostile);
    expect(redactText(`${'?cvv:'.repeat(40_000)} cvv: 123`)).toContain('cvv: ***');
    // A hang guard, not a timing figure: the scan is synchronous, so the test's own timeout cannot stop
    // it; a child process is killed instead. 400 kB takes milliseconds when linear and about half a
    // minute with the unbounded lookahead this replaced (200 kB took 9 s).
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "const { redactText } = await import('./src/redact.ts'); process.stdout.write(String(redactText('?pan:'.repeat(80000)).length));",
      ],
      { cwd: PACKAGE_DIR, timeout: 10_000, encoding: 'utf8' },
    );
    expect(child.signal, 'the scan of 400 kB did not end within 10 s').toBeNull();
    expect(child.stdout).toBe('400000');
  });

  it('attack: masks bare card numbers with runs of separators, tabs, line breaks, underscores or commas, and in the digits of other scripts (found by review)', () => {
    for (const text of [
      '4242  4242  4242  4242',
      '4242\t4242\t4242\t4242',
      '4242\n4242\n4242\n4242',
      '4242_4242_4242_4242',
      '4242,4242,4242,4242',
      '4242 | 4242 | 4242 | 4242',
      '4242\u20134242\u20134242\u20134242',
      '4242 \u2014 4242 \u2014 4242 \u2014 4242',
      '4242\u22124242\u22124242\u22124242',
      '4242\u00b74242\u00b74242\u00b74242',
      '4242 \u2022 4242 \u2022 4242 \u2022 4242',
      '４２４２ ４２４２ ４２４２ ４２４２',
      '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢',
      '۴۲۴۲ ۴۲۴۲ ۴۲۴۲ ۴۲۴۲',
      '४२४२ ४२४२ ४२४२ ४२४२',
    ]) {
      expect(redactText(`note ${text} end`), JSON.stringify(text)).toBe('note 424242***4242 end');
    }
    // Lists, amounts and text in other scripts without a card stay as written.
    expect(redactText('amounts 10.00, 20.00, 30.00, 40.00, 50.00 and 60')).toBe(
      'amounts 10.00, 20.00, 30.00, 40.00, 50.00 and 60',
    );
    expect(redactText('سنة ٢٠٢٦، منزل ١٢')).toBe('سنة ٢٠٢٦، منزل ١٢');
    // Times, phone numbers in brackets and lists joined by `;` stay readable.
    for (const honest of [
      'at 2026-11-28 03:11:50.123Z and 2026-04-24 23:59:59',
      'call +44 (0)20 7946 0006 or +49 (0)30 12340009',
      'qty*price: 3*19.99 = 59.97; 2*24.50 = 49.00',
    ]) {
      expect(redactText(honest)).toBe(honest);
    }
  });

  it('attack: a card number right after a short group of digits is masked whole (the run taken first ended inside the card; found by review)', () => {
    for (const [text, expected] of [
      ['(1234) 4242 4242 4242 4242', '(1234) 424242***4242'],
      ['["1234","4242 4242 4242 4242"]', '["1234","424242***4242"]'],
      ['ref 1234=4242-4242-4242-4242', 'ref 1234=424242***4242'],
      // One run of digits and separators, judged whole: its first six digits and last four stay.
      ['1234, 4242 4242 4242 4242', '123442***4242'],
      ['ref 7 / 4242.4242.4242.4242 end', 'ref 742424***4242 end'],
    ]) {
      const shown = redactText(text as string);
      expect(shown).toBe(expected);
      expect(containsCardNumber(shown)).toBe(false);
    }
  });

  it('attack: masks a card number in its printed grouping whatever punctuation joins the groups, also after another group', () => {
    for (const [text, expected] of [
      ['pay 4242:4242:4242:4242 now', 'pay 424242***4242 now'],
      ['(4242)(4242)(4242)(4242)', '(424242***4242)'],
      ['4242*4242*4242*4242', '424242***4242'],
      ['amex 3782;822463;10005.', 'amex 378282***0005.'],
      ['ref 1234:4242:4242:4242:4242 x', 'ref 1234:424242***4242 x'],
    ]) {
      expect(redactText(text as string)).toBe(expected);
    }
    // After a longer run of plain groups whose last group is the card's first (found by review).
    for (const text of [
      '1234.5678.9012.4242:4242:4242:4242',
      '1234 5678 9012 4242:4242:4242:4242',
      '1111-2222-3333-3782:822463:10005',
      '{"note":"1111.2222.3333.4242;4242;4242;4242"}',
    ]) {
      const shown = redactText(text);
      expect(containsCardNumber(shown), shown).toBe(false);
      expect(shown).not.toMatch(/4242[:;]4242|822463/);
    }
    // A masked run of plain groups whose last group is a card's first, the card in plain groups too.
    for (const text of [
      '1234 5678 9012 4242 4242 4242 4242',
      'Tel +44 20 7946 0958 4242 4242 4242 4242',
      'note=0044+20+7946+0958+4242+4242+4242+4242',
      '{"note":"0044 20 7946 0958 4242 4242 4242 4242"}',
      '1234 5678 9012 3782 822463 10005',
    ]) {
      const shown = redactText(text);
      expect(shown, text).not.toMatch(/4242[ +-]4242|822463/);
    }
    for (const honest of ['4242:4242:4242:4241', '1234:5678:9012:3456:1234:5678', 'at 12:34:56:78']) {
      expect(redactText(honest)).toBe(honest);
    }
    fc.assert(
      fc.property(
        groupedCard,
        fc.stringMatching(/^([0-9]{4}[ .-]){0,4}[0-9]{0,5}$/),
        fc.constantFrom(' ', ':', ';', '(', ' | ', ' / ', '+'),
        fc.stringMatching(/^([ :;.-][0-9]{0,6})?$/),
        (card, lead, joiner, tail) => {
          const shown = redactText(`note ${lead}${joiner}${card.written}${tail} end`);
          // Never the card, written or as its digits. (The mask's first six may join the digits before
          // them into a run that passes Luhn by chance: a card check of the output proves nothing here.)
          expect(shown).not.toContain(card.written);
          expect(shown.replace(/\D/g, '')).not.toContain(card.digits);
        },
      ),
    );
  });

  it('leaves no card number a card-data check would find, after any short group of digits and separator', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{1,5}$/),
        fc.constantFrom(', ', ' / ', '; ', ') ', '","', '=', ' . '),
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 }),
        fc.constantFrom(' ', '-', ''),
        (lead, separator, first, rest, grouping) => {
          const body = `${first}${rest.join('')}`;
          const card = body + luhnDigit(body);
          const written = card.match(/.{1,4}/g)?.join(grouping) ?? card;
          const shown = redactText(`note ${lead}${separator}${written} end`);
          expect(containsCardNumber(shown), shown).toBe(false);
        },
      ),
    );
  });

  it('attack: an array under a card field inside JSON encoded once or twice is hidden to its own close, whatever brackets its strings hold (found by review)', () => {
    const once = '{"x":"{\\"cvv\\":[\\"x]\\",\\"987\\"],\\"keep\\":1}"}';
    expect(redactText(once)).toBe('{"x":"{\\"cvv\\":\\"***\\",\\"keep\\":1}"}');
    const twice = JSON.stringify({ n: JSON.stringify(JSON.stringify({ cvv: [']', '777'], keep: 'yes' })) });
    expect(redactText(twice)).not.toContain('777');
    expect(JSON.parse(JSON.parse(JSON.parse(redactText(twice)).n))).toEqual({ cvv: '***', keep: 'yes' });
    // A backslash at the end of a string, and an escaped quote before a bracket, at each depth.
    const plain = JSON.stringify({ cvv: ['a\\', ']', '555'], keep: 1 });
    expect(JSON.parse(redactText(plain))).toEqual({ cvv: '***', keep: 1 });
    const quoted = JSON.stringify(JSON.stringify({ cvv: ['a\\"]', '556'], keep: 1 }));
    expect(JSON.parse(JSON.parse(redactText(quoted)))).toEqual({ cvv: '***', keep: 1 });
    expect(
      redactText(JSON.stringify({ n: JSON.stringify(JSON.stringify({ cvv: [']', '777'] })) })),
    ).not.toContain('777');
  });

  it('masks bare card numbers split by dots, slashes or no-break spaces', () => {
    expect(redactText('card 4242.4242.4242.4242 failed')).toBe('card 424242***4242 failed');
    expect(redactText('card 4242/4242/4242/4242')).toBe('card 424242***4242');
    expect(redactText('card 4242\u00a04242\u00a04242\u00a04242')).toBe('card 424242***4242');
  });

  it('knows card and code fields written with _ or - between their words, and cvn', () => {
    expect(
      redactText('{"card_no":"4242424242424242","card_cvv":"123","security_code":"456","cvn":"789"}'),
    ).toBe('{"card_no":"424242***4242","card_cvv":"***","security_code":"***","cvn":"***"}');
    expect(redactText('card-number=4242424242424242&sign_key=abc')).toBe(
      'card-number=424242***4242&sign_key=***',
    );
  });

  it('leaves ids, trade numbers, phone numbers, amounts and dates alone', () => {
    const untouched = [
      'cus_1526753334131306496',
      'pm_1526760521989763072',
      '/payment_methods/pm_1526760521989763072/cus_1526753334131306496/attach',
      '{"customerId":"cus_1526753334131306496","customerPaymentMethodId":"pm_1526760521989763072"}',
      '{"tradeNo":"T20261121224722123456789","orderNo":"payses_01JBENCH4242424242424242"}',
      'order 12345 of 2024',
      'call 13800138000 or +1 415-555-0100',
      '{"phone":"+44 20 7946 0000"}',
      '{"orderAmount":"129.90","requestTime":"2026-11-21 22:47:22","at":"2026-11-21T22:47:22.123Z"}',
      'twenty digits 12345678901234567890 are not a card',
      '400000***9995',
    ];
    for (const text of untouched) expect(redactText(text), text).toBe(text);
  });
});

describe('redactText: security codes and keys', () => {
  it('replaces security codes in JSON text, strings and numbers alike', () => {
    expect(
      redactText('{"cardSecurityCode":"123","securityCode":"4321","cvv":"1","CVC" :"12","cvv2": 737}'),
    ).toBe('{"cardSecurityCode":"***","securityCode":"***","cvv":"***","CVC" :"***","cvv2": "***"}');
    expect(redactText('not json 4242424242424242 "cardSecurityCode":"999"')).toBe(
      'not json 424242***4242 "cardSecurityCode":"***"',
    );
  });

  it('hides codes, cards and signatures written as free text, as gateway messages do', () => {
    expect(redactText('cardNo 4242424242424242 cvv 123 signInfo 9f86d081884c7d65')).toBe(
      'cardNo 424242***4242 cvv *** signInfo ***',
    );
    expect(redactText('bad cvv: 4321; securityCode 987')).toBe('bad cvv: *** securityCode ***');
    // Without a digit the word after the name is prose, not a value.
    expect(redactText('the cvv is required; signKey: is missing')).toBe(
      'the cvv is required; signKey: is missing',
    );
  });

  it('attack: a code behind a word or a long filler is hidden (`cvv is 987`, 70 dashes before it; found by review)', () => {
    for (const text of [
      'cvv is 987',
      `cvv: ${'-'.repeat(70)}987`,
      `security code ${'x'.repeat(70)}987 end`,
    ]) {
      expect(redactText(text), text.slice(0, 20)).not.toContain('987');
    }
    expect(redactText(`pan: ${'x'.repeat(65)}4242424242424242`)).not.toContain('4242424242424242');
  });

  it('replaces signing keys and signatures', () => {
    const signature = 'a'.repeat(64);
    expect(
      redactText(`{"signKey":"s3cret","signInfo":"${signature}","sign-info":"${signature}","gatewayNo":"1"}`),
    ).toBe('{"signKey":"***","signInfo":"***","sign-info":"***","gatewayNo":"1"}');
    expect(redactText(`https://shop.example/return?orderNo=1&signInfo=${signature}`)).toBe(
      'https://shop.example/return?orderNo=1&signInfo=***',
    );
  });

  it('handles JSON that was itself JSON-encoded, and keeps it parseable', () => {
    const inner = JSON.stringify({ cardNo: '4242424242424242', cardSecurityCode: '737', city: 'London' });
    const outer = redactText(JSON.stringify({ body: inner }));
    expect(JSON.parse(JSON.parse(outer).body)).toEqual({
      cardNo: '424242***4242',
      cardSecurityCode: '***',
      city: 'London',
    });
  });

  it('hides a value left open by a cut or broken body', () => {
    expect(redactText('{"cardNo":"4000000000009995","cardSecurityCode":"4321",')).toBe(
      '{"cardNo":"400000***9995","cardSecurityCode":"***",',
    );
    expect(redactText('{"cvv":"43')).toBe('{"cvv":"***"');
    expect(redactText('{"cardNo":"4000 0000 00')).toBe('{"cardNo":"***0000"');
  });
});

describe('redact: objects', () => {
  it('masks card fields and removes security codes and keys, with one marker', () => {
    const input = {
      card: { cardNo: '4000002500003155', cardSecurityCode: '123' },
      signKey: 'secret',
      note: ['pan 4000000000009995'],
    };
    expect(redact(input)).toEqual({
      card: { cardNo: '400000***3155', cardSecurityCode: '***' },
      signKey: '***',
      note: ['pan 400000***9995'],
    });
    // A copy: the input keeps its data.
    expect(input.card.cardNo).toBe('4000002500003155');
  });

  it('hides a card field whatever its type', () => {
    expect(
      redact({ cardNo: 4000000000009995, pan: { nested: '4242424242424242' }, CVV: 737, sign_info: 'x' }),
    ).toEqual({ cardNo: '400000***9995', pan: '***', CVV: '***', sign_info: '***' });
  });

  it('leaves ids and non-card values alone and returns other objects as they are', () => {
    const when = new Date(0);
    expect(
      redact({ customerId: 'cus_1526753334131306496', amount: 10.5, at: when, ok: true, none: null }),
    ).toEqual({ customerId: 'cus_1526753334131306496', amount: 10.5, at: when, ok: true, none: null });
    expect(redact('order 12345 of 2024')).toBe('order 12345 of 2024');
    expect(redact(undefined)).toBeUndefined();
  });
});

describe('redactBody', () => {
  it('returns undefined for an empty body and redacts the rest', () => {
    expect(redactBody('')).toBeUndefined();
    expect(redactBody('{"cardNo":"4242424242424242"}')).toBe('{"cardNo":"424242***4242"}');
  });

  it('caps the body at 8 kB, or the limit given', () => {
    const capped = redactBody('x'.repeat(9000));
    expect(capped).toBe(`${'x'.repeat(8192)}…`);
    expect(redactBody('x'.repeat(8192))).toBe('x'.repeat(8192));
    expect(redactBody('abcdef', 3)).toBe('abc…');
  });

  it('never leaves the first digits of a card number cut by the cap', () => {
    const body = `${'x'.repeat(8185)} 4242424242424242 tail`;
    const capped = redactBody(body)!;
    expect(capped).not.toContain('4242');
    expect(capped.endsWith('x…')).toBe(true);
    // A security code cut by the cap is hidden as well.
    expect(redactBody(`{"note":"${'y'.repeat(8170)}","cvv":"4321"}`)).toMatch(/"cvv":"\*\*\*"…$/);
  });
});

const digit = fc.integer({ min: 0, max: 9 });
// 13–19 digits, no leading zero.
const pan = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.array(digit, { minLength: 12, maxLength: 18 }))
  .map(([first, rest]) => `${first}${rest.join('')}`);

/** The PAN as a shop or a person might write it: plain, or in groups of four. */
const written = (digits: string, separator: string) =>
  separator === '' ? digits : (digits.match(/.{1,4}/g) ?? []).join(separator);

/** Every piece of `written` that holds exactly `size` consecutive digits of the card. */
function windows(written: string, size: number): string[] {
  const at = [...written].flatMap((char, index) => (/\d/.test(char) ? [index] : []));
  const parts: string[] = [];
  for (let first = 0; first + size <= at.length; first += 1)
    parts.push(written.slice(at[first], at[first + size - 1]! + 1));
  return parts;
}

describe('properties', () => {
  it('no random 13–19 digit PAN survives in random JSON, wherever it is put', () => {
    const where = fc.constantFrom('value', 'cardNo', 'in-text', 'form', 'array');
    fc.assert(
      fc.property(
        pan,
        fc.constantFrom('', ' ', '-'),
        where,
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
        fc.string({ maxLength: 6 }),
        fc.constantFrom(undefined, 2),
        (digits, separator, place, base, key, indent) => {
          const card = written(digits, separator);
          const value =
            place === 'in-text'
              ? `paid with ${card} today`
              : place === 'form'
                ? `a=1&pan=${card}`
                : place === 'array'
                  ? [card]
                  : card;
          const body = { ...base, [place === 'cardNo' ? 'cardNo' : `k${key}`]: value };
          const text = redactText(JSON.stringify(body, null, indent));
          expect(text).not.toContain(digits);
          expect(text).not.toContain(card);
          // Nor any 11 of its digits in a row: first six and last four are all that may show.
          for (const part of windows(card, 11)) expect(text).not.toContain(part);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('JSON with card data stays parseable, fields masked and codes hidden', () => {
    fc.assert(
      fc.property(
        pan,
        fc.array(digit, { minLength: 3, maxLength: 4 }).map((code) => code.join('')),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 }), { maxKeys: 6 }),
        (digits, code, base) => {
          const body = { ...base, card: { cardNo: digits, cardSecurityCode: code } };
          const parsed = JSON.parse(redactText(JSON.stringify(body))) as typeof body;
          expect(parsed.card).toEqual({
            cardNo: `${digits.slice(0, 6)}***${digits.slice(-4)}`,
            cardSecurityCode: '***',
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('the early exit gives exactly what the full scan gives', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '"cardNo":',
        '"PAN" : ',
        '"cvv":',
        '\\"cvv\\":\\"',
        '"x":',
        '"',
        '\\',
        '/',
        '_',
        ' ',
        '-',
        '+',
        '=',
        '&cvv=',
        'cus_',
        '?pan=',
        ' cvv ',
        'cvv: ',
        ' signInfo ',
        ':',
        '4242424242424242',
        '4242 4242 4242 4242',
        '123456789012',
        '12345678901',
      ),
      fc.stringMatching(/^\d{1,20}$/),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        // Text with escapes is also decoded and scanned again (tested below); the exit is about the rest.
        fc.pre(!/\\u[0-9a-f]{4}|%[0-9a-f]{2}/i.test(text));
        expect(redactText(text)).toBe(redactTextFullScan(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('no card number hidden behind \\u or % escapes survives, once the output is decoded', () => {
    const decode = (text: string) => {
      let out = text;
      for (let i = 0; i < 8; i += 1)
        out = out.replace(/\\u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})/g, (_m, u, p) =>
          String.fromCharCode(Number.parseInt(u ?? p, 16)),
        );
      return out;
    };
    const escapedAs = (char: string, how: number) =>
      how === 0
        ? char
        : how === 1
          ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
          : `%${char.charCodeAt(0).toString(16)}`;
    fc.assert(
      fc.property(
        fc.stringMatching(/^4\d{12,18}$/),
        fc.array(fc.nat({ max: 2 }), { minLength: 19, maxLength: 19 }),
        fc.constantFrom(
          '{"cardNo":"%s"}',
          '{"card\\u004eo":"%s"}',
          '/customers/%s',
          'pan %s',
          '{"remark":"%s"}',
        ),
        (pan, hows, template) => {
          const spelled = [...pan].map((digit, i) => escapedAs(digit, hows[i] ?? 0)).join('');
          const shown = decode(redactText(template.replace('%s', spelled)));
          expect(shown).not.toContain(pan);
          expect(shown).not.toMatch(new RegExp(pan.slice(0, 13)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('redactText: escapes', () => {
  it('finds card fields whose names or digits are written as \\u escapes (valid JSON the gateway decodes)', () => {
    const body =
      '{"card":{"card\\u004eo":"42424242424\\u0032\\u0034\\u0032\\u0034\\u0032","cardSecurity\\u0043ode":"987"}}';
    expect(JSON.parse(body).card.cardNo).toBe('4242424242424242');
    const shown = redactText(body);
    expect(shown).not.toContain('987');
    expect(JSON.parse(shown).card).toEqual({ cardNo: '424242***4242', cardSecurityCode: '***' });
  });

  it('finds a card number split by %20 in a path or query', () => {
    expect(redactText('/V2022-03/customers/4242%204242%204242%204242')).toBe(
      '/V2022-03/customers/424242***4242',
    );
    expect(redactText('/x?q=4242%204242%204242%204242')).not.toMatch(/4242 4242|4242%204242/);
  });

  it('decodes escapes in JSON that was itself JSON-encoded (\\\\u0076)', () => {
    expect(redactText('{"remark":"{\\"cv\\\\u0076\\":\\"123\\"}"}')).toBe(
      '{"remark":"{\\"cvv\\":\\"***\\"}"}',
    );
    const spaced = '{"n":"{\\"n\\":\\"4242\\\\u00204242\\\\u00204242\\\\u00204242\\"}"}';
    expect(redactText(spaced)).toContain('424242***4242');
  });

  it('masks a card field whose digits are escapes with the real first 6 / last 4', () => {
    expect(redactText('{"cardNo":"\\u0034\\u0032\\u0034\\u00324242424242424242"}')).toBe(
      '{"cardNo":"424242***4242"}',
    );
  });

  it('a body cut inside an escaped card number keeps none of its digits', () => {
    const body = `{"note":"4242\\u00204242\\u00204242\\u00204242","x":"${'y'.repeat(20)}"}`;
    for (let cut = 10; cut < body.length; cut += 1) {
      const shown = (redactBody(body, cut) ?? '').replace(/\\u0020/g, ' ');
      expect(shown).not.toMatch(/4242 4242 4242|4242 4242 42/);
    }
  });

  it('finds a card number with + between its groups, as a query string writes spaces', () => {
    expect(redactText('/x?ref=4242+4242+4242+4242&y=1')).toBe('/x?ref=424242***4242&y=1');
    expect(redactText('call +44 20 7946 0958 or +1 555 0100')).toBe('call +44 20 7946 0958 or +1 555 0100');
  });

  it('keeps harmless escapes as written', () => {
    const text = '{"remark":"caf\\u00e9 50%25 off","path":"/a%20b"}';
    expect(redactText(text)).toBe(text);
  });
});
