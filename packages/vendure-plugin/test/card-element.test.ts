import { SESSION_TOKEN_LIFETIME_MS } from '@gatewaykit/core';
import { describe, expect, it, vi } from 'vitest';
import { CardElementService } from '../src/service/card-element.service';

const ctx = { channelId: 2 } as never;

/**
 * The service over fakes: an active order (or none) of the request's channel 2 (or `orderChannel`),
 * one method of the given mode, its checker's answer.
 */
function serviceFor(
  options: { activeOrder?: boolean; mode?: string; eligible?: boolean | string; orderChannel?: number } = {},
) {
  const order = { id: 5, code: 'ABC', channels: [{ id: 1 }, { id: options.orderChannel ?? 2 }] };
  const connection = { getRepository: () => ({ findOne: async () => order }) };
  const channels = { getDefaultChannel: async () => ({ id: 1 }) };
  const client = {
    sessionTokens: { create: vi.fn(async () => ({ sessionToken: 'st_1' })) },
    elementScriptUrl: 'https://pay.example/static/v3/js/AsiabillPayment.min.js',
  };
  const method = { code: 'gk-card', checker: options.eligible === undefined ? null : { args: [] } };
  const check = vi.fn(async () => options.eligible);
  const activeOrders = {
    getActiveOrder: vi.fn(async () => (options.activeOrder === false ? undefined : order)),
  };
  const orders = { findOne: vi.fn(async () => order) };
  const paymentMethods = { getMethodAndOperations: vi.fn(async () => ({ checker: { check } })) };
  const methods = {
    resolve: vi.fn(async () => ({ method, config: { mode: options.mode ?? 'card' }, client })),
  };
  const service = new CardElementService(
    connection as never,
    channels as never,
    activeOrders as never,
    orders as never,
    paymentMethods as never,
    methods as never,
  );
  return { service, client, methods, check };
}

describe('CardElementService', () => {
  it("mints the token with the method's own client and gives the SDK URL and the expiry", async () => {
    const { service, client, methods } = serviceFor();
    const element = await service.forActiveOrder(ctx, 'gk-card', () => 1_000_000);
    expect(methods.resolve).toHaveBeenCalledWith(ctx, 'gk-card');
    expect(client.sessionTokens.create).toHaveBeenCalledTimes(1);
    expect(element).toEqual({
      sessionToken: 'st_1',
      scriptUrl: 'https://pay.example/static/v3/js/AsiabillPayment.min.js',
      expiresAt: new Date(1_000_000 + SESSION_TOKEN_LIFETIME_MS),
    });
  });

  it('needs an active order', async () => {
    const { service, client, methods } = serviceFor({ activeOrder: false });
    await expect(service.forActiveOrder(ctx, 'gk-card')).rejects.toThrow(/no active order/);
    expect(methods.resolve).not.toHaveBeenCalled();
    expect(client.sessionTokens.create).not.toHaveBeenCalled();
  });

  it("attack: refuses another channel's order (the default channel's request for a jp-token order) before any method is read", async () => {
    const { service, client, methods } = serviceFor({ orderChannel: 3 });
    await expect(service.forActiveOrder(ctx, 'gk-card')).rejects.toThrow(/belongs to another channel/);
    expect(methods.resolve).not.toHaveBeenCalled();
    expect(client.sessionTokens.create).not.toHaveBeenCalled();
  });

  it('refuses hosted and local methods', async () => {
    for (const mode of ['hosted', 'local']) {
      const { service, client } = serviceFor({ mode });
      await expect(service.forActiveOrder(ctx, 'gk-card')).rejects.toThrow(
        `is a ${mode} method: the card element is only for card methods`,
      );
      expect(client.sessionTokens.create).not.toHaveBeenCalled();
    }
  });

  it("refuses a method the order's eligibility checker refuses", async () => {
    const refused = serviceFor({ eligible: false });
    await expect(refused.service.forActiveOrder(ctx, 'gk-card')).rejects.toThrow(
      /not available for this order/,
    );
    expect(refused.client.sessionTokens.create).not.toHaveBeenCalled();
    const reason = serviceFor({ eligible: 'orders over 100 only' });
    await expect(reason.service.forActiveOrder(ctx, 'gk-card')).rejects.toThrow('orders over 100 only');
    const ok = serviceFor({ eligible: true });
    await expect(ok.service.forActiveOrder(ctx, 'gk-card')).resolves.toMatchObject({ sessionToken: 'st_1' });
    expect(ok.check).toHaveBeenCalledTimes(1);
  });
});
