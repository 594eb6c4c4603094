/** The gateway's record queries through core's client: transactions, orderInfo and chargebacks, from the sandbox's own records. */
import { GatewayBadRequestError, isGatewayError } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { chargeBody, hostedBody, orderNo, rawCall, useSandboxWithReceiver } from './helpers.js';

const fx = useSandboxWithReceiver();

/** `YYYY-MM-DDTHH:mm:ss` (UTC) of a virtual time. */
const at = (ms: number) => new Date(ms).toISOString().slice(0, 19);
/** A window around the virtual now: an hour back, a minute ahead. */
const window = () => ({
  startTime: at(fx.sb.clock.now() - 3_600_000),
  endTime: at(fx.sb.clock.now() + 60_000),
});

async function thrown(call: Promise<unknown>) {
  return call.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('transactions and orderInfo', () => {
  it('find a charge whose answer was lost (commit-then-drop) and whose callback was dropped', async () => {
    fx.sb.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    fx.sb.setChaos({ drop: true });
    const body = chargeBody({ callbackUrl: fx.receiver.url });
    const lost = await thrown(fx.client.charges.confirm(body));
    expect(isGatewayError(lost)).toBe(true);
    expect(fx.sb.callbacks().map((delivery) => delivery.state)).toEqual(['dropped']);
    expect(fx.receiver.received).toHaveLength(0);

    const found = await fx.client.transactions.list({ ...window(), orderNo: body.orderNo });
    expect(found.page).toEqual({ total: 1, pageSize: 10, pageIndex: 1 });
    const [trade] = found.list;
    expect(trade).toEqual({
      orderNo: body.orderNo,
      tradeNo: expect.stringMatching(/^\d{22}$/),
      tradeDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      tradeStatus: 'success',
      tradeInfo: 'Transaction Approved',
      tradeAmount: '10.50',
      tradeCurrency: 'USD',
    });
    expect(await fx.client.transactions.retrieve(trade?.tradeNo ?? '')).toEqual(trade);
    const byTradeNo = await fx.client.transactions.list({ ...window(), tradeNo: trade?.tradeNo });
    expect(byTradeNo.list).toEqual([trade]);
  });

  it('show failed and pending trades as they stand, and nothing for an orderNo the gateway never saw', async () => {
    const declined = chargeBody({ cardNo: '4000000000009995' });
    await fx.client.charges.confirm(declined);
    const hosted = hostedBody({});
    await fx.client.checkout.createPayment(hosted);
    const failed = await fx.client.transactions.list({ ...window(), orderNo: declined.orderNo });
    expect(failed.list).toMatchObject([{ tradeStatus: 'fail', tradeInfo: 'Card declined' }]);
    const waiting = await fx.client.transactions.list({ ...window(), orderNo: hosted.orderNo });
    expect(waiting.list).toMatchObject([
      { tradeStatus: 'pending', tradeAmount: '25.00', tradeCurrency: 'EUR' },
    ]);
    const never = await fx.client.transactions.list({ ...window(), orderNo: orderNo('NEVER') });
    expect(never).toEqual({ page: { total: 0, pageSize: 10, pageIndex: 1 }, list: [] });
  });

  it('filter on the trade date by the virtual clock, inclusive, and page', async () => {
    const first = chargeBody();
    await fx.client.charges.confirm(first);
    const firstAt = fx.sb.clock.now();
    // Within the 10 minute request-time window: the client signs with the real time.
    fx.sb.clock.advance(5 * 60_000);
    const second = chargeBody();
    const third = chargeBody();
    await fx.client.charges.confirm(second);
    await fx.client.charges.confirm(third);
    const now = fx.sb.clock.now();

    const early = await fx.client.transactions.list({
      startTime: at(firstAt - 60_000),
      endTime: at(firstAt),
    });
    expect(early.list.map((trade) => trade.orderNo)).toEqual([first.orderNo]);
    const late = await fx.client.transactions.list({
      startTime: at(now - 60_000),
      endTime: at(now + 60_000),
    });
    expect(late.list.map((trade) => trade.orderNo)).toEqual([second.orderNo, third.orderNo]);
    const all = await fx.client.transactions.list({
      startTime: at(firstAt - 60_000),
      endTime: at(now + 60_000),
      pageIndex: 2,
      pageSize: 2,
    });
    expect(all.page).toEqual({ total: 3, pageSize: 2, pageIndex: 2 });
    expect(all.list.map((trade) => trade.orderNo)).toEqual([third.orderNo]);
  });

  it('refuse an unknown tradeNo (P0002) and a bad window (P0001, also what the client would not send)', async () => {
    const unknown = await thrown(fx.client.transactions.retrieve('20990101000000000000'));
    expect(unknown).toBeInstanceOf(GatewayBadRequestError);
    expect((unknown as GatewayBadRequestError).code).toBe('P0002');
    const windows: [Record<string, string>, RegExp][] = [
      [
        { startTime: '2030-01-02T00:00:00', endTime: '2030-01-01T00:00:00' },
        /endTime: must not be before startTime/,
      ],
      [{ startTime: '2030-01-01 00:00:00', endTime: '2030-01-02T00:00:00' }, /startTime: /],
      [{ endTime: '2030-01-02T00:00:00' }, /startTime: /],
      [{ startTime: '2030-02-30T00:00:00', endTime: '2030-03-02T00:00:00' }, /startTime: must be a time/],
      [{ startTime: '2030-01-01T00:00:00', endTime: '2030-01-02T00:00:00', pageSize: '1001' }, /pageSize/],
    ];
    for (const [query, message] of windows) {
      for (const path of ['/transactions', '/chargebacks']) {
        const { envelope } = await rawCall(fx.sb, { path, query });
        expect(envelope.code, `${path} ${JSON.stringify(query)}`).toBe('P0001');
        expect(envelope.message).toMatch(message);
      }
    }
    // A numeric orderNo stays text (only the paging values are numbers).
    const { envelope } = await rawCall(fx.sb, {
      path: '/transactions',
      query: { ...window(), orderNo: '12345', pageIndex: '1' },
    });
    expect(envelope).toMatchObject({ code: '00000', data: { page: { total: 0, pageIndex: 1 } } });
  });

  it("keep merchants apart: another merchant's trade does not exist", async () => {
    const { startSandbox } = await import('../src/index.js');
    const { GatewayClient } = await import('@gatewaykit/core');
    const two = await startSandbox({
      port: 0,
      merchants: [
        { gatewayNo: '11111111', signKey: 'key-one' },
        { gatewayNo: '22222222', signKey: 'key-two' },
      ],
    });
    const one = new GatewayClient({ gatewayNo: '11111111', signKey: 'key-one', baseUrl: two.url });
    const other = new GatewayClient({ gatewayNo: '22222222', signKey: 'key-two', baseUrl: two.url });
    try {
      const paid = await one.charges.confirm(chargeBody());
      const error = await thrown(other.transactions.retrieve(paid.tradeNo ?? ''));
      expect((error as GatewayBadRequestError).code).toBe('P0002');
      const window = { startTime: at(two.clock.now() - 60_000), endTime: at(two.clock.now() + 60_000) };
      expect((await other.transactions.list(window)).list).toEqual([]);
      expect((await one.transactions.list(window)).list).toHaveLength(1);
    } finally {
      await one.close();
      await other.close();
      await two.close();
    }
  });
});

describe('chargebacks list', () => {
  it('lists raised chargebacks in the window, by tradeNo or orderNo, paged', async () => {
    const body = chargeBody({ callbackUrl: fx.receiver.url });
    const paid = await fx.client.charges.confirm(body);
    const other = await fx.client.charges.confirm(chargeBody());
    const first = fx.sb.raiseChargeback({ tradeNo: paid.tradeNo ?? '', amount: '3.00', reason: 'Fraud' });
    fx.sb.raiseChargeback({ tradeNo: other.tradeNo ?? '' });

    const listed = await fx.client.chargebacks.list({ ...window(), tradeNo: paid.tradeNo });
    expect(listed.page).toEqual({ total: 1, pageSize: 10, pageIndex: 1 });
    expect(listed.list).toEqual([
      {
        batchNo: first.batchNo,
        tradeNo: paid.tradeNo,
        orderNo: body.orderNo,
        amount: '3.00',
        currency: 'USD',
        reason: 'Fraud',
        replyDeadline: first.replyDeadline,
        cpdDate: first.cpdDate,
        noticeDate: first.noticeDate,
      },
    ]);
    expect((await fx.client.chargebacks.list({ ...window(), orderNo: body.orderNo })).list).toHaveLength(1);
    const paged = await fx.client.chargebacks.list({ ...window(), pageSize: 1, pageIndex: 2 });
    expect(paged.page.total).toBe(2);
    expect(paged.list).toHaveLength(1);
    const before = await fx.client.chargebacks.list({
      startTime: '2020-01-01T00:00:00',
      endTime: '2020-01-02T00:00:00',
    });
    expect(before.list).toEqual([]);
  });
});
