import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { POST } from '../src/api/store/gatewaykit/payment-methods/route';
import { OPTIONS } from './fake-provider';

/** A request scope whose only real entry is medusa-config; every other resolve is recorded. */
function requestWith(body: unknown, allowRawCardData: boolean) {
  const resolved = vi.fn((key: string) => {
    if (key === ContainerRegistrationKeys.CONFIG_MODULE) {
      return {
        modules: [
          {
            options: {
              providers: [
                {
                  resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
                  id: 'gatewaykit',
                  options: { ...OPTIONS, allowRawCardData },
                },
              ],
            },
          },
        ],
      };
    }
    throw new Error(`resolved ${key}`);
  });
  return { req: { scope: { resolve: resolved }, auth_context: { actor_id: 'cus_1' }, body }, resolved };
}

describe('POST /store/gatewaykit/payment-methods', () => {
  it('without allowRawCardData refuses first: no customer lookup, no gateway customer (found by attack review)', async () => {
    const { req, resolved } = requestWith({ card: {}, billingDetail: {} }, false);
    await expect(POST(req as never, {} as never)).rejects.toMatchObject({ type: 'not_allowed' });
    expect(resolved.mock.calls.map(([key]) => key)).toEqual([ContainerRegistrationKeys.CONFIG_MODULE]);
  });
});
