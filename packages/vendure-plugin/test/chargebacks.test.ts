import type { ChargebackEvent } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { chargebackNote, withChargeback } from '../src/service/chargebacks';

const event: ChargebackEvent = {
  kind: 'chargeback',
  batchNo: 'C1',
  tradeNo: 'T1',
  orderNo: 'ABC-1',
  amount: '19.40',
  currency: 'USD',
  reason: 'D4755-Non-Receipt of Goods or Services',
  replyDeadline: '2026-12-24',
};

describe('chargebacks on the payment', () => {
  it('adds a chargeback once, keeping the rest of the metadata', () => {
    const first = withChargeback({ orderNo: 'ABC-1', public: { status: 'succeeded' } }, event);
    expect(first.added).toBe(true);
    expect(first.metadata).toEqual({
      orderNo: 'ABC-1',
      public: { status: 'succeeded' },
      chargebacks: [
        {
          batchNo: 'C1',
          tradeNo: 'T1',
          amount: '19.40',
          currency: 'USD',
          reason: 'D4755-Non-Receipt of Goods or Services',
          replyDeadline: '2026-12-24',
        },
      ],
    });
    const again = withChargeback(first.metadata, { ...event, noticeDate: '2026-11-25 10:00:00' });
    expect(again).toEqual({ metadata: first.metadata, added: false });
    expect(withChargeback(first.metadata, { ...event, batchNo: 'C2' }).added).toBe(true);
  });

  it('tells the merchant what, why and by when', () => {
    expect(chargebackNote(event)).toBe(
      "Chargeback C1 on gateway trade T1: 19.40 USD, reason: D4755-Non-Receipt of Goods or Services, reply deadline: 2026-12-24. Answer it in the gateway's merchant portal.",
    );
    expect(chargebackNote({ kind: 'chargeback' })).toContain('reason: not given, reply deadline: not given');
    expect(chargebackNote(event, { unapplied: true })).toBe(
      `${chargebackNote(event)} This payment was never applied to the order: the bank has taken the money back, so do not also refund it in the merchant portal.`,
    );
  });
});
