import { findNoticedRefund, judgeRefundNotice, type RefundEvent } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { isGatewayRefund, knownRefundOf } from '../src/service/refund-notice';

const pending = {
  id: 1,
  state: 'Pending',
  transactionId: 'R1',
  metadata: {
    gatewaykit: 'gateway',
    merTrackNo: 'ABC-P7-R1',
    batchNo: 'R1',
    refundAmount: '5.00',
    currency: 'USD',
  },
};
const lost = {
  id: 2,
  state: 'Pending',
  transactionId: '',
  metadata: { gatewaykit: 'gateway', merTrackNo: 'ABC-P7-R2' },
};
const manual = { id: 3, state: 'Pending', transactionId: 'R3', metadata: { gatewaykit: 'manual' } };
const success: RefundEvent = {
  kind: 'refund',
  status: 'succeeded',
  batchNo: 'R1',
  merTrackNo: 'ABC-P7-R1',
  tradeNo: 'T1',
  amount: '5.00',
  currency: 'USD',
};

describe("a Vendure refund in core's terms", () => {
  const find = (refunds: (typeof pending | typeof lost | typeof manual)[], event: Partial<RefundEvent>) =>
    findNoticedRefund(refunds.filter(isGatewayRefund), event, (refund) => knownRefundOf(refund));

  it('Pending is open, Settled succeeded, Failed failed; the batchNo is the metadata or the transactionId', () => {
    expect(knownRefundOf(pending)).toMatchObject({ state: 'open', batchNo: 'R1', merTrackNo: 'ABC-P7-R1' });
    expect(knownRefundOf({ ...pending, state: 'Settled' }).state).toBe('succeeded');
    expect(knownRefundOf({ ...pending, state: 'Failed' }).state).toBe('failed');
    expect(knownRefundOf({ ...pending, metadata: { gatewaykit: 'gateway' } }).batchNo).toBe('R1');
    expect(knownRefundOf(lost).batchNo).toBeUndefined();
  });

  it("finds the plugin's gateway refunds only, by batchNo or by merTrackNo when the answer was lost", () => {
    expect(find([pending, lost, manual], success)).toBe(pending);
    expect(find([pending, lost], { batchNo: 'R2', merTrackNo: 'ABC-P7-R2' })).toBe(lost);
    expect(find([manual], { batchNo: 'R3' })).toBeUndefined();
  });

  it('judges with what was asked: the amount, currency and trade the checkout of the refund knows', () => {
    const asked = { amount: '5.00', currency: 'USD', tradeNo: 'T1' };
    expect(judgeRefundNotice(knownRefundOf(pending, asked), success)).toEqual({
      kind: 'settle',
      status: 'succeeded',
    });
    expect(judgeRefundNotice(knownRefundOf(pending, { ...asked, tradeNo: 'T2' }), success).kind).toBe(
      'contradicts',
    );
    expect(judgeRefundNotice(knownRefundOf({ ...pending, state: 'Settled' }, asked), success)).toEqual({
      kind: 'repeat',
    });
  });
});
