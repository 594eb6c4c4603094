import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { DELETE } from '../src/api/store/gatewaykit/payment-methods/[id]/route';
import { GET } from '../src/api/store/gatewaykit/payment-methods/route';
import { OPTIONS } from './fake-provider';

const HOLDERS = [
  { id: 'acchld_DEFAULT_ID', provider_id: 'pp_gatewaykit_gatewaykit', data: { id: 'cus_second' } },
  { id: 'acchld_FIRST_ENTRY', provider_id: 'pp_gatewaykit_eu', data: { id: 'cus_first' } },
];

/**
 * A store whose first gatewaykit entry is not called `gatewaykit` (found by the docs review: the routes
 * named `pp_gatewaykit_gatewaykit`, so such a store listed no saved card and could not remove one).
 */
function storeWithTwoAccounts() {
  const listPaymentMethods = vi.fn(async () => [{ id: 'pm_1000000000000000001', data: { last4: '4242' } }]);
  const deletePaymentMethods = vi.fn(async () => undefined);
  const entry = (id: string) => ({
    resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
    id,
    options: OPTIONS,
  });
  const resolve = vi.fn((key: string) => {
    if (key === ContainerRegistrationKeys.CONFIG_MODULE) {
      return { modules: [{ options: { providers: [entry('eu'), entry('gatewaykit')] } }] };
    }
    if (key === ContainerRegistrationKeys.QUERY) {
      return {
        graph: async () => ({ data: [{ id: 'cus_1', email: 'ada@example.com', account_holders: HOLDERS }] }),
      };
    }
    if (key === Modules.PAYMENT) return { listPaymentMethods, deletePaymentMethods };
    throw new Error(`resolved ${key}`);
  });
  const res = { json: vi.fn(), status: vi.fn() };
  return { scope: { resolve }, res, listPaymentMethods, deletePaymentMethods };
}

describe('saved cards belong to the first gatewaykit entry, whatever its id', () => {
  it('GET lists the first entry’s cards, through its own account holder', async () => {
    const { scope, res, listPaymentMethods } = storeWithTwoAccounts();
    await GET({ scope, auth_context: { actor_id: 'cus_1' } } as never, res as never);
    expect(listPaymentMethods).toHaveBeenCalledWith({
      provider_id: 'pp_gatewaykit_eu',
      context: { account_holder: HOLDERS[1] },
    });
    expect(res.json).toHaveBeenCalledWith({
      payment_methods: [{ id: 'pm_1000000000000000001', data: { last4: '4242' } }],
    });
  });

  it('DELETE removes a card of the first entry, and a card it does not list is a 404', async () => {
    const { scope, res, deletePaymentMethods } = storeWithTwoAccounts();
    const request = (id: string) => ({ scope, params: { id }, auth_context: { actor_id: 'cus_1' } }) as never;
    await expect(DELETE(request('pm_1000000000000000002'), res as never)).rejects.toMatchObject({
      type: 'not_found',
    });
    expect(deletePaymentMethods).not.toHaveBeenCalled();
    await DELETE(request('pm_1000000000000000001'), res as never);
    expect(deletePaymentMethods).toHaveBeenCalledWith([
      {
        provider_id: 'pp_gatewaykit_eu',
        id: 'pm_1000000000000000001',
        context: { account_holder: HOLDERS[1] },
      },
    ]);
  });
});
