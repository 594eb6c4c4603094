import type { RefundEvent } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { decideRefundNotice, findNoticedRefund } from '../src/service/refund-notice';

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
const success: RefundEvent = {
  kind: 'refund',
  status: 'succeeded',
  batchNo: 'R1',
  merTrackNo: 'ABC-P7-R1',
  tradeNo: 'T1',
  amount: '5.00',
  currency: 'USD',
};
const context = { refundAmount: '5.00', currency: 'USD', tradeNo: 'T1' };

describe('findNoticedRefund', () => {
  const lost = {
    id: 2,
    state: 'Pending',
    transactionId: '',
    metadata: { gatewaykit: 'gateway', merTrackNo: 'ABC-P7-R2' },
  };
  const manual = { id: 3, state: 'Pending', transactionId: 'R3', metadata: { gatewaykit: 'manual' } };

  it("finds the plugin's gateway refund by batchNo, or by merTrackNo when its answer was lost", () => {
    expect(findNoticedRefund([pending, lost], success)).toBe(pending);
    expect(findNoticedRefund([pending, lost], { batchNo: 'R2', merTrackNo: 'ABC-P7-R2' })).toBe(lost);
  });

  it('prefers the Pending refund when a Failed duplicate carries the same batchNo or merTrackNo', () => {
    const duplicate = { ...pending, id: 9, state: 'Failed' };
    expect(findNoticedRefund([duplicate, pending], success)).toBe(pending);
    const lostDuplicate = { ...lost, id: 10, state: 'Failed' };
    expect(findNoticedRefund([lostDuplicate, lost], { batchNo: 'R2', merTrackNo: 'ABC-P7-R2' })).toBe(lost);
    // With nothing Pending left, the first match (its notice is then a duplicate or an alert).
    expect(findNoticedRefund([duplicate], success)).toBe(duplicate);
  });

  it('never matches manual refunds or refunds it does not know', () => {
    expect(findNoticedRefund([manual], { batchNo: 'R3' })).toBeUndefined();
    expect(findNoticedRefund([pending], { batchNo: 'R9', merTrackNo: 'other' })).toBeUndefined();
    expect(findNoticedRefund([pending], {})).toBeUndefined();
  });
});

describe('decideRefundNotice', () => {
  it('settles or fails a pending refund; the same state again is a duplicate', () => {
    expect(decideRefundNotice(pending, success, context)).toEqual({ kind: 'settle' });
    expect(decideRefundNotice(pending, { ...success, status: 'failed' }, context)).toEqual({ kind: 'fail' });
    expect(decideRefundNotice({ ...pending, state: 'Settled' }, success, context)).toEqual({
      kind: 'duplicate',
    });
    expect(
      decideRefundNotice({ ...pending, state: 'Failed' }, { ...success, status: 'failed' }, context),
    ).toEqual({
      kind: 'duplicate',
    });
  });

  it('never moves a refund back: a contradicting notice is an alert', () => {
    expect(
      decideRefundNotice({ ...pending, state: 'Settled' }, { ...success, status: 'failed' }, context),
    ).toEqual({
      kind: 'alert',
      message: 'the refund is already Settled',
    });
    expect(decideRefundNotice({ ...pending, state: 'Failed' }, success, context).kind).toBe('alert');
  });

  it('a success must name this refund: its amount, currency, trade and batch', () => {
    expect(decideRefundNotice(pending, { ...success, amount: '5' }, context)).toEqual({ kind: 'settle' });
    expect(decideRefundNotice(pending, { ...success, amount: '50.00' }, context)).toEqual({
      kind: 'alert',
      message: 'it reports 50.00 USD, the refund is 5.00 USD',
    });
    expect(decideRefundNotice(pending, { ...success, amount: undefined }, context).kind).toBe('alert');
    expect(decideRefundNotice(pending, { ...success, currency: 'EUR' }, context).kind).toBe('alert');
    expect(decideRefundNotice(pending, { ...success, tradeNo: 'T2' }, context).kind).toBe('alert');
    expect(decideRefundNotice(pending, { ...success, batchNo: 'R2' }, context).kind).toBe('alert');
  });

  it('a failure without an amount refunded nothing and is taken', () => {
    expect(decideRefundNotice(pending, { ...success, status: 'failed', amount: undefined }, context)).toEqual(
      {
        kind: 'fail',
      },
    );
  });
});
