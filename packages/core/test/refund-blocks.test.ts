import { describe, expect, it } from 'vitest';
import { refundBlockedBy } from '../src/index.js';

const asked =
  (amount: string, refunded: string[] = []) =>
  () => ({
    amount,
    paid: '100.00',
    refunded,
    currency: 'USD',
  });

describe('refundBlockedBy', () => {
  it('lets a refund through when no notice recorded a chargeback', async () => {
    expect(await refundBlockedBy({}, asked('100.00'))).toBeUndefined();
    expect(await refundBlockedBy({ chargebacks: [] }, asked('100.00'))).toBeUndefined();
  });

  it('asks for the amounts only to count a chargeback against them (a platform reads its refunds to answer)', async () => {
    let asks = 0;
    const counted = () => {
      asks++;
      return asked('1.00')();
    };
    await refundBlockedBy({}, counted);
    await refundBlockedBy({ uncountedRefunds: ['PORTAL1'], chargebacks: [{ amount: '1.00' }] }, counted);
    expect(asks).toBe(0);
    await refundBlockedBy({ chargebacks: [{ amount: '1.00' }] }, counted);
    expect(asks).toBe(1);
  });

  it('attack: refuses a refund of money a chargeback already returned, naming what is left', async () => {
    const charged = { chargebacks: [{ batchNo: 'CB1', amount: '100.00', currency: 'USD' }] };
    expect(await refundBlockedBy(charged, asked('0.01'))).toMatch(
      /charged back \(chargeback CB1\).*so nothing is left to refund, not 0\.01 USD/,
    );
  });

  it('lets the undisputed rest of a partly charged-back payment be refunded, and no more', async () => {
    const partly = { chargebacks: [{ batchNo: 'CB1', amount: '20.00', currency: 'USD' }] };
    expect(await refundBlockedBy(partly, asked('50.00'))).toBeUndefined();
    expect(await refundBlockedBy(partly, asked('80.00'))).toBeUndefined();
    expect(await refundBlockedBy(partly, asked('80.01'))).toMatch(/only 80\.00 USD is left/);
    // Refunded 10 and 20 already: 50 left of the rest.
    expect(await refundBlockedBy(partly, asked('50.00', ['10.00', '20.00']))).toBeUndefined();
    expect(await refundBlockedBy(partly, asked('50.01', ['10.00', '20.00']))).toMatch(
      /only 50\.00 USD is left/,
    );
    // Two chargebacks add up; the currency may be absent (the trade's).
    const twice = { chargebacks: [...partly.chargebacks, { batchNo: 'CB2', amount: '30.00' }] };
    expect(await refundBlockedBy(twice, asked('50.00'))).toBeUndefined();
    expect(await refundBlockedBy(twice, asked('50.01'))).toMatch(/chargeback CB1, CB2/);
  });

  it('attack: a chargeback on a payment also refunded outside the store blocks every refund (found by review)', async () => {
    const history = { chargebacks: [{ batchNo: 'CB1', amount: '60.00' }], uncountedRefunds: ['PORTAL1'] };
    expect(await refundBlockedBy(history, asked('0.01'))).toMatch(
      /refunded outside the store \(batchNo PORTAL1\)/,
    );
  });

  it('attack: a refund made outside the store (the merchant portal) blocks every refund through the store: it is not counted there, and nothing says the gateway refuses more than is left (found by review)', async () => {
    const blocked = await refundBlockedBy({ uncountedRefunds: ['PORTAL1'] }, asked('0.01'));
    expect(blocked).toMatch(/^the payment was refunded outside the store \(batchNo PORTAL1\)/);
    expect(blocked).toMatch(/Refund any more in the merchant portal$/);
    expect(await refundBlockedBy({ uncountedRefunds: [] }, asked('40.00'))).toBeUndefined();
  });

  it('attack: a chargeback whose amount cannot be counted blocks every refund', async () => {
    for (const chargeback of [{ batchNo: 'CB1' }, { batchNo: 'CB1', amount: '5.00', currency: 'EUR' }, {}]) {
      expect(await refundBlockedBy({ chargebacks: [chargeback] }, asked('0.01'))).toMatch(
        /cannot be counted/,
      );
    }
  });
});
