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
      },
    ]);
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
