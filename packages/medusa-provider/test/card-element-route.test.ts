import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { POST } from '../src/api/store/gatewaykit/card-element/route';
import { OPTIONS } from './fake-provider';

// The route builds its client with core's gatewayClientFor: here one whose token call fails or succeeds.
const createToken = vi.fn();
vi.mock('@gatewaykit/core', async (original) => ({
  ...(await original<typeof import('@gatewaykit/core')>()),
  gatewayClientFor: () => ({
    sessionTokens: { create: createToken },
    elementScriptUrl: 'http://gateway.test/static/v3/js/AsiabillPayment.min.js',
  }),
}));

function request() {
  const logger = { warn: vi.fn() };
  const resolve = (key: string) => {
    if (key === ContainerRegistrationKeys.CONFIG_MODULE) {
      const entry = {
        resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
        id: 'gatewaykit',
        options: OPTIONS,
      };
      return { modules: [{ options: { providers: [entry] } }] };
    }
    if (key === ContainerRegistrationKeys.QUERY) {
      return {
        graph: async ({ entity }: { entity: string }) => ({
          data:
            entity === 'cart'
              ? [{ id: 'cart_1', region_id: 'reg_1', completed_at: null }]
              : [{ id: 'reg_1', payment_providers: [{ id: 'pp_gatewaykit_gatewaykit', is_enabled: true }] }],
        }),
      };
    }
    if (key === ContainerRegistrationKeys.LOGGER) return logger;
    throw new Error(`resolved ${key}`);
  };
  const res = { status: vi.fn(), json: vi.fn() };
  res.status.mockReturnValue(res);
  const req = { scope: { resolve }, body: { cart_id: 'cart_1', provider_id: 'pp_gatewaykit_gatewaykit' } };
  return { req, res, logger };
}

describe('POST /store/gatewaykit/card-element (route)', () => {
  it('answers the token as JSON', async () => {
    createToken.mockResolvedValueOnce({ sessionToken: 'st_abc' });
    const { req, res } = request();
    await POST(req as never, res as never);
    expect(res.status).not.toHaveBeenCalled();
    expect(res.json).toHaveBeenCalledWith({
      session_token: 'st_abc',
      script_url: 'http://gateway.test/static/v3/js/AsiabillPayment.min.js',
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('a gateway that issues no token is a 502 saying nothing was charged, logged without secrets', async () => {
    createToken.mockRejectedValueOnce(new Error('connect ECONNREFUSED'));
    const { req, res, logger } = request();
    await POST(req as never, res as never);
    expect(res.status).toHaveBeenCalledWith(502);
    expect(res.json).toHaveBeenCalledWith({
      type: 'gateway_unavailable',
      message: expect.stringContaining('nothing was charged'),
    });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('ECONNREFUSED'));
    expect(JSON.stringify(logger.warn.mock.calls)).not.toContain(OPTIONS.signKey);
  });
});
