/** Hosted pages driven like a script would: form posts, 303 to returnUrl, signed return, callback. */
import { GatewayClient, verifyCallback, verifyReturn } from '@gatewaykit/core';
import { signedReturnQuery } from '@gatewaykit/core/testing';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../src/index.js';
import { chargeBody, hostedBody, submitPage, useSandboxWithReceiver } from './helpers.js';

const fx = useSandboxWithReceiver();

function returned(response: Response): URL {
  expect(response.status).toBe(303);
  return new URL(response.headers.get('location') ?? '');
}

/** Checks the return signature by recomputing it, and with core's verifyReturn. */
function verified(location: URL) {
  const fields = verifyReturn({ query: location.searchParams, signKey: fx.sb.signKey });
  const recomputed =
    signedReturnQuery(
      Object.fromEntries(
        [
          'code',
          'gatewayNo',
          'maskCardNo',
          'merNo',
          'message',
          'orderAmount',
          'orderCurrency',
          'orderInfo',
          'orderNo',
          'orderStatus',
          'tradeNo',
        ].map((name) => [name, location.searchParams.get(name) ?? '']),
      ),
      fx.sb.signKey,
    ).get('signInfo') ?? '';
  expect(location.searchParams.get('signInfo')).toBe(recomputed);
  expect(recomputed).toBe(recomputed.toUpperCase());
  return fields;
}

async function callbackFor(orderNo: string) {
  await fx.sb.waitForCallbacks((all) =>
    all.some((delivery) => delivery.orderNo === orderNo && delivery.state === 'delivered'),
  );
  const raw = fx.receiver.received.find((callback) => callback.rawBody.includes(orderNo));
  expect(raw).toBeDefined();
  return verifyCallback({
    rawBody: raw?.rawBody ?? '',
    headers: raw?.headers ?? {},
    gatewayNo: fx.sb.gatewayNo,
    signKey: fx.sb.signKey,
  });
}

describe('3-D Secure challenge page', () => {
  it('renders one form posting to its own URL with the three outcome buttons', async () => {
    const charge = await fx.client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
    const html = await (await fetch(charge.redirectUrl ?? '')).text();
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain(`action="${charge.redirectUrl}"`);
    for (const outcome of ['success', 'fail', 'abandon'])
      expect(html).toContain(`name="outcome" value="${outcome}"`);
  });

  it('success → 303 to returnUrl with a verifiable signature, keeping merchant params, and a success callback', async () => {
    const body = chargeBody({ cardNo: '4000002500003155', callbackUrl: fx.receiver.url });
    const charge = await fx.client.charges.confirm(body);
    const location = returned(await submitPage(charge.redirectUrl ?? '', { outcome: 'success' }));
    expect(location.origin + location.pathname).toBe('https://shop.example/return');
    expect(location.searchParams.get('cart')).toBe('42');
    const fields = verified(location);
    expect(fields).toMatchObject({
      orderNo: body.orderNo,
      orderStatus: 'success',
      tradeNo: charge.tradeNo,
      merNo: '12345',
      gatewayNo: '12345678',
      maskCardNo: '400000***3155',
      orderAmount: '10.50',
      orderCurrency: 'USD',
    });
    const event = await callbackFor(body.orderNo);
    expect(event.type).toBe('transaction.success');
    expect(event.data).toMatchObject({
      orderNo: body.orderNo,
      orderStatus: 'success',
      tradeNo: charge.tradeNo,
    });
  });

  it('fail → return with orderStatus fail and a fail callback', async () => {
    const body = chargeBody({ cardNo: '4000002500003155', callbackUrl: fx.receiver.url });
    const charge = await fx.client.charges.confirm(body);
    const fields = verified(returned(await submitPage(charge.redirectUrl ?? '', { outcome: 'fail' })));
    expect(fields.orderStatus).toBe('fail');
    expect((await callbackFor(body.orderNo)).type).toBe('transaction.fail');
  });

  it('4000000000003220 fails even when the challenge is completed', async () => {
    const charge = await fx.client.charges.confirm(chargeBody({ cardNo: '4000000000003220' }));
    const fields = verified(returned(await submitPage(charge.redirectUrl ?? '', { outcome: 'success' })));
    expect(fields.orderStatus).toBe('fail');
    expect(fields.orderInfo).toContain('3-D Secure');
  });

  it('a repeated post returns the same final result without a second callback', async () => {
    const body = chargeBody({ cardNo: '4000002500003155', callbackUrl: fx.receiver.url });
    const charge = await fx.client.charges.confirm(body);
    const first = returned(await submitPage(charge.redirectUrl ?? '', { outcome: 'success' }));
    const second = returned(await submitPage(charge.redirectUrl ?? '', { outcome: 'fail' }));
    expect(second.searchParams.get('orderStatus')).toBe('success');
    expect(second.searchParams.get('signInfo')).toBe(first.searchParams.get('signInfo'));
    await callbackFor(body.orderNo);
    expect(fx.sb.callbacks().filter((delivery) => delivery.orderNo === body.orderNo)).toHaveLength(1);
  });
});

describe('hosted card page', () => {
  async function page() {
    const pre = await fx.client.checkout.createPayment(hostedBody({ callbackUrl: fx.receiver.url }));
    return { pre, url: pre.redirectUrl ?? '' };
  }
  const cardFields = (cardNo: string) => ({
    cardNo,
    cardExpireMonth: '12',
    cardExpireYear: '2030',
    cardSecurityCode: '123',
    outcome: 'success',
  });

  it('has the four card inputs', async () => {
    const html = await (await fetch((await page()).url)).text();
    for (const name of ['cardNo', 'cardExpireMonth', 'cardExpireYear', 'cardSecurityCode'])
      expect(html).toContain(`name="${name}"`);
  });

  it.each([
    ['4242424242424242', 'success'],
    ['4000002500003155', 'success'],
    ['4000000000009995', 'fail'],
    ['4000000000003220', 'fail'],
  ])('card %s → %s, with the mask in the return and the callback', async (cardNo, status) => {
    const { pre, url } = await page();
    const fields = verified(returned(await submitPage(url, cardFields(cardNo))));
    expect(fields.orderStatus).toBe(status);
    expect(fields.maskCardNo).toBe(`${cardNo.slice(0, 6)}***${cardNo.slice(-4)}`);
    const event = await callbackFor(pre.orderNo);
    expect(event.data.orderStatus).toBe(status);
    expect(event.data.maskCardNo).toBe(fields.maskCardNo);
    expect(JSON.stringify(fx.sb.state())).not.toContain(cardNo);
  });

  it('4000000000000077 returns pending and succeeds later by callback only', async () => {
    const { pre, url } = await page();
    const fields = verified(returned(await submitPage(url, cardFields('4000000000000077'))));
    expect(fields.orderStatus).toBe('pending');
    fx.sb.clock.advance(5000);
    await fx.sb.waitForCallbacks((all) =>
      all.some(
        (delivery) =>
          delivery.type === 'transaction.success' &&
          delivery.orderNo === pre.orderNo &&
          delivery.state === 'delivered',
      ),
    );
    expect(fx.sb.order(pre.orderNo)?.orderStatus).toBe('success');
  });

  it('re-renders with an error (400) for bad card fields, without echoing them', async () => {
    const { url } = await page();
    const response = await submitPage(url, { ...cardFields('4242'), cardSecurityCode: '9' });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('Card number must be 13 to 19 digits');
    expect(html).not.toContain('value="4242"');
  });

  it('abandon → return with fail and a message saying the shopper abandoned', async () => {
    const { pre, url } = await page();
    const fields = verified(returned(await submitPage(url, { outcome: 'abandon' })));
    expect(fields.orderStatus).toBe('fail');
    expect(fields.message).toMatch(/abandon/i);
    expect(fields.orderInfo).toMatch(/abandon/i);
    expect((await callbackFor(pre.orderNo)).type).toBe('transaction.fail');
  });

  it('abandon never returns when the control API says so (the callback still comes)', async () => {
    await fetch(`${fx.sb.url}/_sandbox/chaos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ noReturn: 'abandon' }),
    });
    const { pre, url } = await page();
    const response = await submitPage(url, { outcome: 'abandon' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('close this window');
    expect((await callbackFor(pre.orderNo)).type).toBe('transaction.fail');
    expect(fx.sb.order(pre.orderNo)?.returnedAt).toBeUndefined();
  });

  it('unknown pages answer 404', async () => {
    expect((await fetch(`${fx.sb.url}/pay/checkout/nope`)).status).toBe(404);
  });
});

describe('local method page', () => {
  it('success and fail outcomes return signed results with an empty maskCardNo', async () => {
    const ok = await fx.client.localPayments.create(
      hostedBody({ paymentMethod: 'alipay', callbackUrl: fx.receiver.url }),
    );
    const html = await (await fetch(ok.redirectUrl ?? '')).text();
    expect(html).toContain('Alipay');
    const fields = verified(returned(await submitPage(ok.redirectUrl ?? '', { outcome: 'success' })));
    expect(fields).toMatchObject({ orderStatus: 'success', maskCardNo: '' });
    expect((await callbackFor(ok.orderNo)).type).toBe('transaction.success');

    const ko = await fx.client.localPayments.create(hostedBody({ paymentMethod: 'KLARNA' }));
    expect(verified(returned(await submitPage(ko.redirectUrl ?? '', { outcome: 'fail' }))).orderStatus).toBe(
      'fail',
    );
  });
});

describe('another site against the hosted pages', () => {
  /** A post the browser sends for another site's auto-submitting form. */
  function postFrom(url: string, headers: Record<string, string>, fields: Record<string, string>) {
    return fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual', headers });
  }

  it('attack: a cross-site form cannot finish or abandon another shopper’s pending page', async () => {
    const charge = await fx.client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
    const checkout = await fx.client.checkout.createPayment(hostedBody({}));
    const url = charge.redirectUrl ?? '';
    const senders: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      // A page on another port of the same machine is same-site, not same-origin.
      { 'sec-fetch-site': 'same-site', origin: 'http://localhost:5999' },
      // An older browser without Fetch Metadata still names the form's origin.
      { origin: 'https://evil.example' },
    ];
    for (const headers of senders) {
      const answer = await postFrom(url, headers, { outcome: 'success' });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.headers.get('location')).toBeNull();
      const abandon = await postFrom(checkout.redirectUrl ?? '', headers, { outcome: 'abandon' });
      expect(abandon.status, JSON.stringify(headers)).toBe(403);
    }
    expect(fx.sb.order(charge.tradeNo ?? '')).toMatchObject({
      orderStatus: 'pending',
      returnedAt: undefined,
    });
    expect(fx.sb.order(checkout.tradeNo ?? '')).toMatchObject({
      orderStatus: 'pending',
      returnedAt: undefined,
    });
    expect(fx.sb.callbacks()).toHaveLength(0);
  });

  it('the page’s own form post (same origin) still finishes the payment', async () => {
    const charge = await fx.client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
    const url = charge.redirectUrl ?? '';
    const answer = await postFrom(
      url,
      { 'sec-fetch-site': 'same-origin', origin: new URL(url).origin },
      { outcome: 'success' },
    );
    expect(verified(returned(answer)).orderStatus).toBe('success');
  });

  it('the page’s own form under a public URL (a proxy that rewrites Host) still finishes the payment', async () => {
    const sb = await startSandbox({ port: 0, publicUrl: 'https://pay.sandbox.test' });
    const client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
    try {
      const charge = await client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
      expect(charge.redirectUrl).toMatch(/^https:\/\/pay\.sandbox\.test\/pay\/3ds\//);
      const answer = await postFrom(
        (charge.redirectUrl ?? '').replace('https://pay.sandbox.test', sb.url),
        { 'sec-fetch-site': 'same-origin', origin: 'https://pay.sandbox.test' },
        { outcome: 'success' },
      );
      expect(answer.status).toBe(303);
      expect(sb.order(charge.tradeNo ?? '')?.orderStatus).toBe('success');
    } finally {
      await client.close();
      await sb.close();
    }
  });

  it('attack: another site cannot frame the hosted pages (clickjacking the outcome buttons)', async () => {
    const charge = await fx.client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
    const checkout = await fx.client.checkout.createPayment(hostedBody({}));
    const local = await fx.client.localPayments.create(hostedBody({ paymentMethod: 'alipay' }));
    for (const url of [charge.redirectUrl, checkout.redirectUrl, local.redirectUrl]) {
      const page = await fetch(url ?? '');
      expect(page.status).toBe(200);
      expect(page.headers.get('x-frame-options'), url).toBe('DENY');
      expect(page.headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
    }
  });
});
