import { describe, expect, it } from 'vitest';
import { closeAttemptArgs, closeRefundIntentArgs, parseAdminInput } from '../src/api/admin-input';

describe('gatewaykitCloseAttempt arguments', () => {
  it('takes an orderNo and a note, trimmed', () => {
    expect(
      parseAdminInput(closeAttemptArgs, { orderNo: 'ABC-1', note: '  no charge in the portal ' }),
    ).toEqual({
      ok: true,
      value: { orderNo: 'ABC-1', note: 'no charge in the portal' },
    });
  });

  it('attack: an empty, blank or 201-character note is refused naming the note, never echoing it', () => {
    for (const note of ['', '   ', `4111111111111111 ${'x'.repeat(184)}`]) {
      const parsed = parseAdminInput(closeAttemptArgs, { orderNo: 'ABC-1', note });
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.message).toMatch(/^note: /);
      expect(parsed.message).not.toContain('4111');
    }
  });

  it('attack: an empty or 51-character orderNo is refused naming the orderNo', () => {
    for (const orderNo of ['', 'A'.repeat(51)]) {
      expect(parseAdminInput(closeAttemptArgs, { orderNo, note: 'checked' })).toEqual({
        ok: false,
        message: expect.stringMatching(/^orderNo: /),
      });
    }
  });

  it('attack: an unknown field is refused', () => {
    expect(parseAdminInput(closeAttemptArgs, { orderNo: 'A-1', note: 'n', status: 'succeeded' }).ok).toBe(
      false,
    );
  });
});

describe('gatewaykitCloseRefundIntent arguments', () => {
  it('takes a merTrackNo, what the portal shows and a note, trimmed', () => {
    expect(
      parseAdminInput(closeRefundIntentArgs, {
        merTrackNo: 'ABC-P7-R1',
        made: true,
        note: ' portal shows it ',
      }),
    ).toEqual({ ok: true, value: { merTrackNo: 'ABC-P7-R1', made: true, note: 'portal shows it' } });
  });

  it('attack: refuses a blank or overlong id, a made that is not a boolean, a blank note, and extra keys (a forged answer), naming the field', () => {
    const base = { merTrackNo: 'ABC-P7-R1', made: false, note: 'none in the portal' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, merTrackNo: '' }, /^merTrackNo: /],
      [{ ...base, merTrackNo: 'x'.repeat(101) }, /^merTrackNo: /],
      [{ ...base, made: 'true' }, /^made: /],
      [{ ...base, made: undefined }, /^made: /],
      [{ ...base, note: '   ' }, /^note: /],
      [{ ...base, answer: 'succeeded' }, /answer/],
    ];
    for (const [args, field] of cases) {
      const parsed = parseAdminInput(closeRefundIntentArgs, args);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(field);
    }
  });
});
