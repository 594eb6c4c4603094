import { describe, expect, it } from 'vitest';
import { refundBlockedBy } from '../src/index.js';

describe('refundBlockedBy', () => {
  it('lets a refund through when no notice recorded a chargeback', () => {
    expect(refundBlockedBy({})).toBeUndefined();
    expect(refundBlockedBy({ chargebacks: [] })).toBeUndefined();
  });

  it('attack: refuses a refund of a charged-back payment, which would return the money twice', () => {
    expect(refundBlockedBy({ chargebacks: [{ batchNo: 'CB1' }] })).toMatch(
      /charged back \(chargeback CB1\).*twice/,
    );
    expect(refundBlockedBy({ chargebacks: [{}] })).toMatch(/chargeback without batchNo/);
  });
});
