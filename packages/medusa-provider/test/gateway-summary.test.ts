import { describe, expect, it } from 'vitest';
import { gatewaySummaries } from '../src/admin/lib/gateway-summary';

describe('admin order widget summary', () => {
  it('shows tradeNo, status, masked card, orderInfo and method of gatewaykit payments only', () => {
    const summaries = gatewaySummaries({
      payment_collections: [
        {
          payments: [
            {
              provider_id: 'pp_gatewaykit-local_gatewaykit',
              data: {
                mode: 'local',
                localMethod: 'klarna',
                outcome: {
                  status: 'succeeded',
                  tradeNo: 'T1',
                  maskCardNo: '424242***4242',
                  orderInfo: 'Approved',
                },
              },
            },
            { provider_id: 'pp_system_default', data: {} },
          ],
        },
      ],
    });
    expect(summaries).toEqual([
      {
        providerId: 'pp_gatewaykit-local_gatewaykit',
        method: 'Local payment (klarna)',
        status: 'succeeded',
        tradeNo: 'T1',
        maskedCard: '424242***4242',
        orderInfo: 'Approved',
        refunds: [],
        chargebacks: [],
      },
    ]);
  });

  it('lists the gateway refunds and chargebacks of a payment (reason, amount, reply deadline)', () => {
    const [summary] = gatewaySummaries({
      payment_collections: [
        {
          payments: [
            {
              provider_id: 'pp_gatewaykit-hosted_gatewaykit',
              data: {
                mode: 'hosted',
                outcome: { status: 'succeeded', tradeNo: 'T1' },
                refunds: [
                  {
                    merTrackNo: 'ref_1',
                    batchNo: 'R1',
                    amount: '5.00',
                    currency: 'USD',
                    status: 'succeeded',
                  },
                  {
                    merTrackNo: 'ref_2',
                    batchNo: 'R2',
                    amount: '6.00',
                    currency: 'USD',
                    status: 'failed',
                    reason: 'Declined',
                  },
                  { merTrackNo: 'ref_3', amount: '1.00', currency: 'USD', status: 'unknown' },
                ],
                chargebacks: [
                  {
                    batchNo: 'C1',
                    amount: '60.00',
                    currency: 'USD',
                    reason: 'D4755-Non-Receipt of Goods',
                    replyDeadline: '2026-01-09 00:00:00',
                    receivedAt: 'x',
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(summary!.refunds).toEqual([
      { amount: '5.00 USD', status: 'succeeded', batchNo: 'R1', reason: undefined },
      { amount: '6.00 USD', status: 'failed', batchNo: 'R2', reason: 'Declined' },
      { amount: '1.00 USD', status: 'unknown', batchNo: undefined, reason: undefined },
    ]);
    expect(summary!.chargebacks).toEqual([
      {
        amount: '60.00 USD',
        reason: 'D4755-Non-Receipt of Goods',
        replyDeadline: '2026-01-09 00:00:00',
        batchNo: 'C1',
      },
    ]);
  });

  it('ignores refund and chargeback lists of another shape instead of failing the order page', () => {
    const [summary] = gatewaySummaries({
      payment_collections: [
        {
          payments: [
            { provider_id: 'pp_gatewaykit_gatewaykit', data: { refunds: 'x', chargebacks: [null, 3] } },
          ],
        },
      ],
    });
    expect(summary).toMatchObject({ refunds: [], chargebacks: [] });
  });

  it('falls back to the session when no payment exists (order waiting for the callback)', () => {
    const [summary] = gatewaySummaries({
      payment_collections: [
        {
          payments: [],
          payment_sessions: [
            {
              provider_id: 'pp_gatewaykit_gatewaykit',
              data: { mode: 'card', outcome: { status: 'pending' } },
            },
          ],
        },
      ],
    });
    expect(summary).toMatchObject({ method: 'Saved card', status: 'pending' });
  });
});
