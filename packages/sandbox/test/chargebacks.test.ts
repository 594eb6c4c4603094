/** Chargebacks: raised by the control API or the Sandbox object, notified signed, listed, on the dashboard. */
import { verifyCallback } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import type { ChargebackRecord } from '../src/index.js';
import { chargeBody, useSandboxWithReceiver } from './helpers.js';

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

const control = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
  fetch(`${fx.sb.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A paid charge whose transaction.success callback was delivered (receiver index 0). */
async function paid(fields: { cardNo?: string } = {}) {
  const charge = await fx.client.charges.confirm(chargeBody({ ...fields, callbackUrl: fx.receiver.url }));
  await fx.sb.waitForCallbacks((all) => all.length > 0 && all.every((entry) => entry.state === 'delivered'));
  if (!charge.tradeNo) throw new Error('the charge has no tradeNo');
  return { ...charge, tradeNo: charge.tradeNo };
}

describe('raising a chargeback', () => {
  it('POST /_sandbox/chargebacks records it and sends a signed chargeback.success to the original callbackUrl', async () => {
    const charge = await paid();
    const response = await control('/_sandbox/chargebacks', {
      tradeNo: charge.tradeNo,
      amount: '4.5',
      reason: '4837-No Cardholder Authorization',
      replyDeadline: '2030-01-15 00:00:00',
    });
    expect(response.status).toBe(201);
    const chargeback = (await response.json()) as ChargebackRecord;
    expect(chargeback).toMatchObject({
      batchNo: expect.stringMatching(/^CB\d{22}$/),
      tradeNo: charge.tradeNo,
      orderNo: charge.orderNo,
      amount: '4.50',
      currency: 'USD',
      reason: '4837-No Cardholder Authorization',
      replyDeadline: '2030-01-15 00:00:00',
      noticeDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(chargeback.cpdDate).toBe(chargeback.noticeDate);

    const [delivery] = await fx.sb.waitForCallbacks((all) =>
      all.some((entry) => entry.type === 'chargeback.success' && entry.state === 'delivered'),
    );
    expect(delivery?.type).toBe('transaction.success');
    const notice = fx.sb.callbacks().find((entry) => entry.type === 'chargeback.success');
    expect(notice).toMatchObject({
      batchNo: chargeback.batchNo,
      tradeNo: charge.tradeNo,
      url: fx.receiver.url,
    });
    const event = verify(1);
    expect(event.type).toBe('chargeback.success');
    expect(event.data).toEqual({
      chargebackInfo: { replyDeadline: '2030-01-15 00:00:00', cpdDate: chargeback.cpdDate },
      reason: '4837-No Cardholder Authorization',
      amount: '4.50',
      batchNo: chargeback.batchNo,
      orderAmount: '10.50',
      orderNo: charge.orderNo,
      tradeNo: charge.tradeNo,
      orderCurrency: 'USD',
      noticeDate: chargeback.noticeDate,
      currency: 'USD',
    });

    const listed = (await (
      await control(`/_sandbox/chargebacks?tradeNo=${charge.tradeNo}`)
    ).json()) as unknown[];
    expect(listed).toEqual([chargeback]);
    expect(fx.sb.chargebacks(charge.tradeNo)).toEqual([chargeback]);
    expect(fx.sb.state().chargebacks).toEqual([chargeback]);
  });

  it('defaults to the whole amount, a reason and a reply deadline 7 days after the notice (virtual clock)', async () => {
    const charge = await paid();
    fx.sb.clock.advance(86_400_000);
    const chargeback = fx.sb.raiseChargeback({ tradeNo: charge.tradeNo });
    expect(chargeback.amount).toBe('10.50');
    expect(chargeback.reason).toMatch(/Non-Receipt/);
    const notice = Date.parse(`${chargeback.noticeDate.replace(' ', 'T')}Z`);
    expect(Math.abs(notice - fx.sb.clock.now())).toBeLessThan(2000);
    expect(Date.parse(`${chargeback.replyDeadline.replace(' ', 'T')}Z`) - notice).toBe(7 * 86_400_000);
    await fx.sb.waitForCallbacks((all) => all.some((entry) => entry.type === 'chargeback.success'));
  });

  it('refuses unknown and unpaid trades and amounts above the paid one', async () => {
    const declined = await paid({ cardNo: '4000000000009995' });
    const ok = await paid();
    const cases: [unknown, number, RegExp][] = [
      [{ tradeNo: '20990101000000000000' }, 404, /unknown tradeNo/],
      [{}, 400, /tradeNo is required/],
      [{ tradeNo: declined.tradeNo }, 409, /is fail/],
      [{ tradeNo: ok.tradeNo, amount: '10.51' }, 400, /more than the 10.50 USD paid/],
      [{ tradeNo: ok.tradeNo, amount: '1.001' }, 400, /amount: .*decimals/],
      [{ tradeNo: ok.tradeNo, amount: '0' }, 400, /amount: must be greater than zero/],
    ];
    for (const [body, status, message] of cases) {
      const response = await control('/_sandbox/chargebacks', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
    expect(() => fx.sb.raiseChargeback({ tradeNo: declined.tradeNo })).toThrow(/only a paid trade/);
    expect(fx.sb.chargebacks()).toHaveLength(0);
  });

  it('follows callback chaos: dropped, then redelivered by hand', async () => {
    const charge = await paid();
    fx.sb.setChaos({ drop: true });
    const chargeback = fx.sb.raiseChargeback({ tradeNo: charge.tradeNo });
    const notice = fx.sb.callbacks().find((entry) => entry.batchNo === chargeback.batchNo);
    expect(notice?.state).toBe('dropped');
    expect(fx.receiver.received).toHaveLength(1);
    await fx.sb.redeliver(notice?.id ?? '');
    expect(verify(1)).toMatchObject({ type: 'chargeback.success', data: { batchNo: chargeback.batchNo } });
  });
});

describe('dashboard', () => {
  it('shows chargebacks per order and raises one from its button', async () => {
    const charge = await paid();
    const raised = await fetch(`${fx.sb.url}/_sandbox/chargebacks`, {
      method: 'POST',
      body: new URLSearchParams({ tradeNo: charge.tradeNo, reason: 'Fraud <script>' }),
      redirect: 'manual',
    });
    expect(raised.status).toBe(303);
    const [chargeback] = fx.sb.chargebacks();
    const html = await (await fetch(`${fx.sb.url}/`)).text();
    expect(html).toContain('<h2>Chargebacks</h2>');
    const row = html
      .split('<tr>')
      .find((part) => part.includes(charge.orderNo) && part.includes('chargeback '));
    expect(row).toContain(`chargeback ${chargeback?.batchNo} 10.50: Fraud &lt;script&gt;`);
    expect(html).not.toContain('Fraud <script>');
  });
});
