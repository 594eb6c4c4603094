/** Callback engine: wire format, signature, retries until `success`, redeliver and chaos. */
import { GatewayClient, phpJsonEncode, verifyCallback } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_MS, startSandbox } from '../src/index.js';
import { chargeBody, hostedBody, submitPage, useSandboxWithReceiver } from './helpers.js';

const fx = useSandboxWithReceiver();

const verify = (index: number) => {
  const callback = fx.receiver.received[index];
  if (!callback) throw new Error(`no callback #${index}`);
  return verifyCallback({
    rawBody: callback.rawBody,
    headers: callback.headers,
    gatewayNo: fx.sb.gatewayNo,
    signKey: fx.sb.signKey,
  });
};

describe('wire format', () => {
  it('POSTs PHP-style JSON {type, data} with string values, signed UPPERCASE with version V2022-03', async () => {
    const body = {
      ...chargeBody({ callbackUrl: fx.receiver.url }),
      orderNo: 'A/1-é',
      remark: 'café http://x/y',
    };
    await fx.client.charges.confirm(body);
    await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    const [callback] = fx.receiver.received;
    expect(callback?.headers['content-type']).toBe('application/json');
    expect(callback?.headers['version']).toBe('V2022-03');
    expect(callback?.headers['gateway-no']).toBe(fx.sb.gatewayNo);
    expect(callback?.headers['sign-info']).toMatch(/^[0-9A-F]{64}$/);
    const parsed = JSON.parse(callback?.rawBody ?? '{}') as { type: string; data: Record<string, unknown> };
    // Exactly what PHP's json_encode(…, JSON_UNESCAPED_UNICODE) produces: `\/` and raw non-ASCII.
    expect(callback?.rawBody).toBe(phpJsonEncode(parsed));
    expect(callback?.rawBody).toContain('"orderNo":"A\\/1-é"');
    expect(Object.values(parsed.data).every((value) => typeof value === 'string')).toBe(true);
    expect(parsed.data).toMatchObject({
      orderNo: 'A/1-é',
      orderAmount: '10.50',
      orderCurrency: 'USD',
      orderStatus: 'success',
      maskCardNo: '424242***4242',
      remark: 'café http://x/y',
    });
    const event = verify(0);
    expect(event.type).toBe('transaction.success');
  });

  it('sends pending then success for the pending card', async () => {
    const body = chargeBody({ cardNo: '4000000000000077', callbackUrl: fx.receiver.url });
    await fx.client.charges.confirm(body);
    fx.sb.clock.advance(5000);
    await fx.sb.waitForCallbacks(
      (all) => all.length === 2 && all.every((delivery) => delivery.state === 'delivered'),
    );
    const types = fx.receiver.received.map((_, index) => verify(index).type).sort();
    expect(types).toEqual(['transaction.pending', 'transaction.success']);
  });

  it('sends a fail callback for a declined card', async () => {
    await fx.client.charges.confirm(chargeBody({ cardNo: '4000000000009995', callbackUrl: fx.receiver.url }));
    await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    expect(verify(0)).toMatchObject({
      type: 'transaction.fail',
      data: { orderStatus: 'fail', orderInfo: 'Card declined' },
    });
  });
});

describe('retries', () => {
  it('retries until the receiver answers success (any case, trimmed), re-signing each attempt', async () => {
    fx.receiver.respond = (index) => (index < 3 ? 'fail' : '  SUCCESS\n');
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    const [delivery] = await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    expect(delivery?.attempts.map((attempt) => attempt.result)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'delivered',
    ]);
    expect(fx.receiver.received).toHaveLength(4);
    expect(new Set(fx.receiver.received.map((callback) => callback.headers['request-id'])).size).toBe(4);
    for (let index = 0; index < 4; index++) expect(verify(index).type).toBe('transaction.success');
    expect(new Set(fx.receiver.received.map((callback) => callback.rawBody)).size).toBe(1);
  });

  it('follows the 15-attempt schedule on the virtual clock, then gives up', async () => {
    const slow = await startSandbox({ port: 0, callbackTimeScale: 1 });
    try {
      fx.receiver.respond = () => 'not yet';
      const slowClient = new GatewayClient({
        gatewayNo: slow.gatewayNo,
        signKey: slow.signKey,
        baseUrl: slow.url,
      });
      await slowClient.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
      await slowClient.close();
      for (let attempt = 1; attempt < 15; attempt++) {
        const [delivery] = await slow.waitForCallbacks(
          (all) => all[0]?.attempts.length === attempt && all[0]?.state === 'scheduled',
        );
        const wait = RETRY_SCHEDULE_MS[attempt - 1] ?? 0;
        const last = delivery?.attempts.at(-1);
        const gap = Date.parse(delivery?.nextAttemptAt ?? '') - Date.parse(last?.at ?? '');
        expect(gap).toBeGreaterThanOrEqual(wait);
        expect(gap).toBeLessThan(wait + 5000);
        slow.clock.advance(wait);
      }
      const [final] = await slow.waitForCallbacks((all) => all[0]?.state === 'failed');
      expect(final?.attempts).toHaveLength(15);
      const s = 1000;
      const m = 60 * s;
      const h = 60 * m;
      expect(RETRY_SCHEDULE_MS).toEqual([
        15 * s,
        15 * s,
        30 * s,
        3 * m,
        3 * m,
        30 * m,
        30 * m,
        h,
        2 * h,
        2 * h,
        2 * h,
        2 * h,
        2 * h,
        2 * h,
      ]);
    } finally {
      await slow.close();
    }
  });

  it('redelivers by hand through the control API', async () => {
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    const [delivery] = await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    const response = await fetch(`${fx.sb.url}/_sandbox/callbacks/${delivery?.id}/redeliver`, {
      method: 'POST',
    });
    expect(response.status).toBe(200);
    const after = (await response.json()) as { attempts: { manual: boolean; result: string }[] };
    expect(after.attempts.at(-1)).toMatchObject({ manual: true, result: 'delivered' });
    expect(fx.receiver.received).toHaveLength(2);
    expect(verify(1).type).toBe('transaction.success');
    expect((await fetch(`${fx.sb.url}/_sandbox/callbacks/nope/redeliver`, { method: 'POST' })).status).toBe(
      404,
    );
  });
});

describe('chaos', () => {
  it('delivers N copies concurrently', async () => {
    fx.sb.setChaos({ copies: 3 });
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    await fx.sb.waitForCallbacks(
      (all) => all.length === 3 && all.every((delivery) => delivery.state === 'delivered'),
    );
    expect(fx.receiver.received).toHaveLength(3);
    expect(new Set(fx.receiver.received.map((callback) => callback.rawBody)).size).toBe(1);
  });

  it('sends a stale fail after the success (out of order)', async () => {
    fx.sb.setChaos({ outOfOrder: true });
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    await fx.sb.waitForCallbacks(
      (all) => all.length === 2 && all.every((delivery) => delivery.state === 'delivered'),
    );
    expect(verify(0).type).toBe('transaction.success');
    expect(verify(1)).toMatchObject({ type: 'transaction.fail', data: { orderStatus: 'fail' } });
  });

  it('drops a callback (recorded, never sent) until redelivered by hand', async () => {
    fx.sb.setChaos({ drop: true });
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    const [delivery] = fx.sb.callbacks();
    expect(delivery?.state).toBe('dropped');
    expect(fx.receiver.received).toHaveLength(0);
    await fx.sb.redeliver(delivery?.id ?? '');
    expect(fx.sb.callbacks()[0]?.state).toBe('delivered');
    expect(fx.receiver.received).toHaveLength(1);
  });

  it('delays a callback until the delay passes on the clock', async () => {
    fx.sb.setChaos({ delayMs: 3_600_000 });
    await fx.client.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
    expect(fx.sb.callbacks()[0]?.state).toBe('scheduled');
    expect(fx.receiver.received).toHaveLength(0);
    fx.sb.clock.advance(3_600_000);
    await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    expect(fx.receiver.received).toHaveLength(1);
  });

  it('before-return: the browser is sent back only after the callback was answered', async () => {
    fx.sb.setChaos({ timing: 'before-return' });
    let release: (value: string) => void = () => {};
    fx.receiver.respond = () => new Promise<string>((resolve) => (release = resolve));
    const pre = await fx.client.checkout.createPayment(hostedBody({ callbackUrl: fx.receiver.url }));
    let returned = false;
    const post = submitPage(pre.redirectUrl ?? '', {
      outcome: 'success',
      cardNo: '4242424242424242',
      cardExpireMonth: '12',
      cardExpireYear: '2030',
      cardSecurityCode: '123',
    }).then((response) => {
      returned = true;
      return response;
    });
    await fx.sb.waitForCallbacks(() => fx.receiver.received.length === 1);
    expect(returned).toBe(false);
    release('success');
    expect((await post).status).toBe(303);
  });

  it('after-return: the callback starts only once the 303 was written', async () => {
    fx.sb.setChaos({ timing: 'after-return' });
    const pre = await fx.client.localPayments.create(
      hostedBody({ paymentMethod: 'ideal', callbackUrl: fx.receiver.url }),
    );
    const response = await submitPage(pre.redirectUrl ?? '', { outcome: 'success' });
    expect(response.status).toBe(303);
    const [delivery] = await fx.sb.waitForCallbacks((all) => all[0]?.state === 'delivered');
    const order = fx.sb.order(pre.orderNo);
    expect(Date.parse(delivery?.attempts[0]?.at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(order?.returnedAt ?? 'x'),
    );
  });

  it('is set, read and cleared through the control API, which validates it', async () => {
    const set = await fetch(`${fx.sb.url}/_sandbox/chaos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ copies: 2, outOfOrder: true, timing: 'after-return' }),
    });
    expect(await set.json()).toEqual({ copies: 2, outOfOrder: true, timing: 'after-return' });
    const bad = await fetch(`${fx.sb.url}/_sandbox/chaos`, {
      method: 'POST',
      body: JSON.stringify({ timing: 'sideways' }),
    });
    expect(bad.status).toBe(400);
    await fetch(`${fx.sb.url}/_sandbox/chaos`, { method: 'DELETE' });
    expect(await (await fetch(`${fx.sb.url}/_sandbox/chaos`)).json()).toEqual({});
  });
});

describe('merchants and public URL', () => {
  it('signs each callback with the key of the order’s own merchant and hands out publicUrl pages', async () => {
    const multi = await startSandbox({
      port: 0,
      merchants: [
        { gatewayNo: '11110001', signKey: 'first-key' },
        { gatewayNo: '22220002', signKey: 'second-key' },
      ],
      publicUrl: 'https://pay.sandbox.test/',
    });
    const second = new GatewayClient({ gatewayNo: '22220002', signKey: 'second-key', baseUrl: multi.url });
    try {
      const pre = await second.checkout.createPayment(hostedBody({ callbackUrl: fx.receiver.url }));
      expect(pre.redirectUrl).toBe(`https://pay.sandbox.test/pay/checkout/${pre.tradeNo}`);
      await second.charges.confirm(chargeBody({ callbackUrl: fx.receiver.url }));
      await multi.waitForCallbacks((all) => all[0]?.state === 'delivered');
      const callback = fx.receiver.received[0];
      expect(callback?.headers['gateway-no']).toBe('22220002');
      const event = verifyCallback({
        rawBody: callback?.rawBody ?? '',
        headers: callback?.headers ?? {},
        gatewayNo: '22220002',
        signKey: 'second-key',
      });
      expect(event.type).toBe('transaction.success');
      expect(() =>
        verifyCallback({
          rawBody: callback?.rawBody ?? '',
          headers: callback?.headers ?? {},
          gatewayNo: '11110001',
          signKey: 'first-key',
        }),
      ).toThrow();
    } finally {
      await second.close();
      await multi.close();
    }
  });
});
