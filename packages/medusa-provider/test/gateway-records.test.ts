import type { RefundEvent } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { applyRefundEvent, type GatewayRefund, withChargeback, withRefund } from '../src/lib/gateway-records';

const NOW = new Date('2026-01-02T03:04:05.000Z');

function refund(overrides: Partial<GatewayRefund> = {}): GatewayRefund {
  return {
    merTrackNo: 'ref_1',
    batchNo: 'R1',
    amount: '5.00',
    currency: 'USD',
    refundType: '2',
    status: 'pending',
    requestedAt: '2026-01-02T03:00:00.000Z',
    ...overrides,
  };
}

function event(overrides: Partial<RefundEvent> = {}): RefundEvent {
  return {
    kind: 'refund',
    status: 'succeeded',
    merTrackNo: 'ref_1',
    batchNo: 'R1',
    amount: '5.00',
    currency: 'USD',
    ...overrides,
  };
}

describe('applyRefundEvent', () => {
  it('settles a pending refund found by merTrackNo, keeping the batchNo', () => {
    const result = applyRefundEvent([refund()], event(), NOW);
    expect(result).toMatchObject({
      kind: 'changed',
      entry: { status: 'succeeded', batchNo: 'R1', settledAt: NOW.toISOString() },
    });
  });

  it('finds a refund whose answer was lost by merTrackNo and takes the batchNo from the event', () => {
    const result = applyRefundEvent(
      [refund({ batchNo: undefined, status: 'unknown' })],
      event({ batchNo: 'R9' }),
      NOW,
    );
    expect(result.kind === 'changed' && result.entry).toMatchObject({ status: 'succeeded', batchNo: 'R9' });
  });

  it('finds a refund by batchNo when the event has no merTrackNo', () => {
    expect(applyRefundEvent([refund()], event({ merTrackNo: undefined }), NOW).kind).toBe('changed');
  });

  it('keeps the failure reason of a failed refund', () => {
    const result = applyRefundEvent([refund()], event({ status: 'failed', reason: 'Declined' }), NOW);
    expect(result.kind === 'changed' && result.entry).toMatchObject({ status: 'failed', reason: 'Declined' });
  });

  it('a repeat is a duplicate; the other settled status afterwards is a conflict; neither changes anything', () => {
    const settled = refund({ status: 'succeeded', settledAt: 'before' });
    expect(applyRefundEvent([settled], event(), NOW)).toEqual({ kind: 'duplicate', entry: settled });
    expect(applyRefundEvent([settled], event({ status: 'failed' }), NOW)).toEqual({
      kind: 'conflict',
      entry: settled,
    });
  });

  it('an event of no refund of the payment is no-entry (a forged or portal refund)', () => {
    expect(applyRefundEvent([refund()], event({ merTrackNo: 'ref_other', batchNo: 'R_other' }), NOW)).toEqual(
      {
        kind: 'no-entry',
      },
    );
    expect(applyRefundEvent(undefined, event(), NOW)).toEqual({ kind: 'no-entry' });
  });

  it('another amount or currency is a mismatch and changes nothing', () => {
    expect(applyRefundEvent([refund()], event({ amount: '50.00' }), NOW).kind).toBe('mismatch');
    expect(applyRefundEvent([refund()], event({ currency: 'EUR' }), NOW).kind).toBe('mismatch');
    expect(applyRefundEvent([refund()], event({ amount: '5' }), NOW).kind).toBe('changed');
  });

  it("attack: a success that does not say what it refunded, or is about another trade or refund, changes nothing (core's rule, as on Vendure)", () => {
    expect(applyRefundEvent([refund()], event({ amount: undefined }), NOW)).toMatchObject({
      kind: 'mismatch',
      message:
        'the gateway reported refund R1 succeeded, but it reports no amount USD, the refund is 5.00 USD',
    });
    expect(applyRefundEvent([refund()], event({ tradeNo: 'T2' }), NOW, 'T1').kind).toBe('mismatch');
    expect(applyRefundEvent([refund()], event({ tradeNo: 'T1' }), NOW, 'T1').kind).toBe('changed');
    // Found by its batchNo, but naming another refund's merTrackNo.
    expect(applyRefundEvent([refund()], event({ merTrackNo: 'ref_2' }), NOW).kind).toBe('mismatch');
    // A failure refunded nothing: taken without an amount.
    expect(applyRefundEvent([refund()], event({ status: 'failed', amount: undefined }), NOW).kind).toBe(
      'changed',
    );
  });
});

describe('withRefund', () => {
  it('adds new refunds and never moves a settled one back to pending', () => {
    const settled = refund({ status: 'succeeded' });
    expect(withRefund([settled], refund({ status: 'pending' }))).toEqual([settled]);
    expect(withRefund([refund()], refund({ status: 'failed', reason: 'x' }))).toEqual([
      refund({ status: 'failed', reason: 'x' }),
    ]);
    expect(withRefund([refund()], refund({ merTrackNo: 'ref_2' }))).toHaveLength(2);
  });
});

describe('withChargeback', () => {
  const chargeback = {
    kind: 'chargeback' as const,
    batchNo: 'C1',
    tradeNo: 'T1',
    amount: '60.00',
    currency: 'USD',
    reason: 'D4755-Non-Receipt of Goods',
    replyDeadline: '2026-01-09',
  };

  it('stores a chargeback once, keyed by batchNo', () => {
    const first = withChargeback(undefined, chargeback, NOW);
    expect(first).toMatchObject({
      added: true,
      chargebacks: [{ batchNo: 'C1', replyDeadline: '2026-01-09' }],
    });
    const again = withChargeback(first.chargebacks, chargeback, new Date());
    expect(again.added).toBe(false);
    expect(again.chargebacks).toEqual(first.chargebacks);
    expect(withChargeback(first.chargebacks, { ...chargeback, batchNo: 'C2' }, NOW).chargebacks).toHaveLength(
      2,
    );
  });
});
