/** Refunds through core's client: the ledger per trade, merTrackNo idempotency, outcome controls and refund.* notifications. */
import { GatewayBadRequestError, isGatewayError, verifyCallback } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import type { RefundRecord } from '../src/index.js';
import { chargeBody, rawCall, useSandboxWithReceiver } from './helpers.js';

const fx = useSandboxWithReceiver();

const verified = () =>
  fx.receiver.received.map((callback) =>
    verifyCallback({
      rawBody: callback.rawBody,
      headers: callback.headers,
      gatewayNo: fx.sb.gatewayNo,
      signKey: fx.sb.signKey,
    }),
  );
const refundEvents = () => verified().filter((event) => event.type.startsWith('refund.'));

/** Waits until every delivery so far has been delivered and `count` of them exist. */
const delivered = (count: number) =>
  fx.sb.waitForCallbacks(
    (all) => all.length === count && all.every((delivery) => delivery.state === 'delivered'),
  );

/** A 10.50 USD charge with the given card; with a callbackUrl (default), once its callback is delivered. */
async function charge(cardNo = '4242424242424242', withCallback = true) {
  const before = fx.sb.callbacks().length;
  const callbackUrl = withCallback ? fx.receiver.url : undefined;
  const result = await fx.client.charges.confirm(chargeBody({ cardNo, callbackUrl }));
  if (withCallback) await delivered(before + 1);
  if (!result.tradeNo) throw new Error('no tradeNo');
  return { ...result, tradeNo: result.tradeNo };
}

let trackCounter = 0;
// No long digit runs: the client redacts anything that looks like a card number in error messages.
const merTrackNo = () => `RF-${Date.now().toString(36)}-${++trackCounter}`;

const refund = (
  tradeNo: string,
  refundAmount: string,
  fields: { merTrackNo?: string; refundType?: '1' | '2'; refundReason?: string } = {},
) =>
  fx.client.refunds.create({
    tradeNo,
    refundAmount,
    refundType: fields.refundType ?? '2',
    refundReason: fields.refundReason ?? 'Customer returned the goods',
    merTrackNo: fields.merTrackNo ?? merTrackNo(),
  });

/** The gateway error a refused call throws. */
async function refused(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayBadRequestError);
  return error as GatewayBadRequestError;
}

describe('refunds', () => {
  it('full refund: answered, queried, notified signed (refund.success) to the payment callbackUrl', async () => {
    const paid = await charge();
    const track = merTrackNo();
    const answer = await refund(paid.tradeNo, '10.50', { merTrackNo: track, refundType: '1' });
    expect(answer).toMatchObject({ batchNo: expect.stringMatching(/^R\d{22}$/), refundStatus: 'success' });

    const record = await fx.client.refunds.retrieve(answer.batchNo);
    expect(record).toMatchObject({
      batchNo: answer.batchNo,
      merTrackNo: track,
      tradeNo: paid.tradeNo,
      orderNo: paid.orderNo,
      refundAmount: '10.50',
      refundCurrency: 'USD',
      refundStatus: 'success',
      refundReason: 'Customer returned the goods',
      refundDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });

    const deliveries = await delivered(2);
    expect(deliveries[1]).toMatchObject({
      type: 'refund.success',
      batchNo: answer.batchNo,
      url: fx.receiver.url,
      tradeNo: paid.tradeNo,
    });
    const [event] = refundEvents();
    expect(event?.type).toBe('refund.success');
    expect(event?.data).toEqual({
      reason: 'Customer returned the goods',
      amount: '10.50',
      batchNo: answer.batchNo,
      merTrackNo: track,
      orderAmount: '10.50',
      orderNo: paid.orderNo,
      tradeNo: paid.tradeNo,
      orderCurrency: 'USD',
      currency: 'USD',
      noticeDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    // Signed like every callback: the raw body is what phpJsonEncode makes, upper-case sign-info.
    expect(fx.receiver.received[1]?.headers['sign-info']).toMatch(/^[0-9A-F]{64}$/);

    const again = await refused(refund(paid.tradeNo, '0.01'));
    expect(again.code).toBe('P0001');
    expect(again.message).toMatch(/already fully refunded/);
  });

  it('partial refunds up to the paid amount; more is refused naming the amount left', async () => {
    const paid = await charge();
    expect((await refund(paid.tradeNo, '4')).refundStatus).toBe('success');
    expect((await refund(paid.tradeNo, '5.00')).refundStatus).toBe('success');
    const over = await refused(refund(paid.tradeNo, '2.00'));
    expect(over.code).toBe('P0001');
    expect(over.message).toMatch(/refundAmount 2\.00 USD is more than the 1\.50 USD left to refund/);
    // A full refund after partials is more than what is left too.
    expect((await refused(refund(paid.tradeNo, '10.50', { refundType: '1' }))).message).toMatch(
      /1\.50 USD left/,
    );
    expect((await refund(paid.tradeNo, '1.50')).refundStatus).toBe('success');
    expect(fx.sb.refunds(paid.tradeNo).map((entry) => entry.refundAmount)).toEqual(['4.00', '5.00', '1.50']);
    await delivered(4);
    expect(refundEvents().map((event) => event.data.amount)).toEqual(['4.00', '5.00', '1.50']);
  });

  it('refuses a full refund (refundType 1) of part of the amount, and malformed amounts', async () => {
    const paid = await charge(undefined, false);
    expect((await refused(refund(paid.tradeNo, '5.00', { refundType: '1' }))).message).toMatch(
      /full refund \(refundType 1\) refunds the whole 10\.50 USD/,
    );
    // What the client would not send: the sandbox checks it too.
    const raw = async (refundAmount: string, tradeNo = paid.tradeNo) =>
      (
        await rawCall(fx.sb, {
          path: '/refund',
          body: JSON.stringify({
            merTrackNo: merTrackNo(),
            refundAmount,
            refundReason: 'test',
            refundType: '2',
            tradeNo,
          }),
        })
      ).envelope;
    expect(await raw('5.001')).toMatchObject({
      code: 'P0001',
      message: expect.stringMatching(/refundAmount/),
    });
    expect(await raw('0')).toMatchObject({ code: 'P0001', message: expect.stringMatching(/refundAmount/) });
    const yen = await fx.client.charges.confirm({
      ...chargeBody(),
      orderAmount: '1200',
      orderCurrency: 'JPY',
    });
    expect(await raw('1.50', yen.tradeNo)).toMatchObject({
      code: 'P0001',
      message: expect.stringMatching(/refundAmount: 1\.50 has more decimals than JPY/),
    });
    expect((await raw('1200', yen.tradeNo)).data).toMatchObject({ refundStatus: 'success' });
    expect(fx.sb.refunds(paid.tradeNo)).toHaveLength(0);
  });

  it('refuses refunds of failed, pending and unknown trades', async () => {
    const declined = await charge('4000000000009995');
    const failed = await refused(refund(declined.tradeNo, '1.00'));
    expect(failed.code).toBe('P0001');
    expect(failed.message).toMatch(/is fail, not success: only a successful trade can be refunded/);

    // The 3-D Secure card waits on its challenge page: pending.
    const challenged = await fx.client.charges.confirm(chargeBody({ cardNo: '4000002500003155' }));
    const pending = await refused(refund(challenged.tradeNo ?? '', '1.00'));
    expect(pending.message).toMatch(/is pending/);

    const unknown = await refused(refund('20990101000000000000', '1.00'));
    expect(unknown.code).toBe('P0002');
    expect(unknown.message).toMatch(/tradeNo 20990101000000000000 does not exist/);
    expect(fx.sb.refunds()).toHaveLength(0);
  });

  it('the same merTrackNo answers the same batch (no second refund); another amount or trade is refused', async () => {
    const paid = await charge();
    const track = merTrackNo();
    const first = await refund(paid.tradeNo, '3.00', { merTrackNo: track });
    const second = await refund(paid.tradeNo, '3', { merTrackNo: track });
    expect(second).toEqual(first);
    expect(fx.sb.refunds(paid.tradeNo)).toHaveLength(1);

    const otherAmount = await refused(refund(paid.tradeNo, '4.00', { merTrackNo: track }));
    expect(otherAmount.message).toMatch(
      new RegExp(
        `merTrackNo ${track} was already used for a refund of 3\\.00 USD on tradeNo ${paid.tradeNo}`,
      ),
    );
    const other = await charge(undefined, false);
    expect((await refused(refund(other.tradeNo, '3.00', { merTrackNo: track }))).message).toMatch(
      /already used/,
    );
    await delivered(2);
    expect(refundEvents()).toHaveLength(1);
  });

  it('a refund whose answer was lost (commit-then-drop) is found again by its merTrackNo, not made twice', async () => {
    const paid = await charge();
    const track = merTrackNo();
    fx.sb.addFault({ route: 'createRefund', kind: 'commit-then-drop' });
    const lost = await refund(paid.tradeNo, '2.00', { merTrackNo: track }).catch((error: unknown) => error);
    expect(isGatewayError(lost)).toBe(true);
    expect(fx.sb.refunds(paid.tradeNo)).toHaveLength(1);
    const retried = await refund(paid.tradeNo, '2.00', { merTrackNo: track });
    expect(retried.batchNo).toBe(fx.sb.refunds(paid.tradeNo)[0]?.batchNo);
    expect(fx.sb.refunds(paid.tradeNo)).toHaveLength(1);
  });
});

describe('refund outcome controls', () => {
  it('addRefundOutcome fail: refund.fail notification with the reason; a failed refund gives nothing back', async () => {
    const paid = await charge();
    const rule = fx.sb.addRefundOutcome({ outcome: 'fail', reason: 'Insufficient merchant balance' });
    expect(fx.sb.refundOutcomes()).toEqual([rule]);
    const track = merTrackNo();
    const answer = await refund(paid.tradeNo, '10.50', { merTrackNo: track, refundType: '1' });
    expect(answer.refundStatus).toBe('fail');
    expect(fx.sb.refundOutcomes()).toHaveLength(0);
    expect((await fx.client.refunds.retrieve(answer.batchNo)).refundStatus).toBe('fail');
    await delivered(2);
    const [event] = refundEvents();
    expect(event).toMatchObject({
      type: 'refund.fail',
      data: {
        reason: 'Insufficient merchant balance',
        batchNo: answer.batchNo,
        merTrackNo: track,
        amount: '10.50',
      },
    });
    // The same merTrackNo still answers the failed refund; a new one refunds the whole amount.
    expect((await refund(paid.tradeNo, '10.50', { merTrackNo: track, refundType: '1' })).batchNo).toBe(
      answer.batchNo,
    );
    expect((await refund(paid.tradeNo, '10.50', { refundType: '1' })).refundStatus).toBe('success');
  });

  it('pending over HTTP: held (counts against what is left), no notification, then settled by the control', async () => {
    const paid = await charge();
    const control = (path: string, body: unknown) =>
      fetch(`${fx.sb.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const next = await control('/_sandbox/refunds/next', { outcome: 'pending' });
    expect(next.status).toBe(201);
    expect(await next.json()).toMatchObject({ outcome: 'pending', remaining: 1 });

    const answer = await refund(paid.tradeNo, '6.00');
    expect(answer.refundStatus).toBe('pending');
    expect((await fx.client.refunds.retrieve(answer.batchNo)).refundStatus).toBe('pending');
    expect((await refused(refund(paid.tradeNo, '5.00'))).message).toMatch(/4\.50 USD left/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fx.sb.callbacks()).toHaveLength(1);

    const settled = await control(`/_sandbox/refunds/${answer.batchNo}/settle`, { status: 'success' });
    expect(settled.status).toBe(200);
    expect(((await settled.json()) as RefundRecord).refundStatus).toBe('success');
    expect((await fx.client.refunds.retrieve(answer.batchNo)).refundStatus).toBe('success');
    await delivered(2);
    expect(refundEvents()).toMatchObject([{ type: 'refund.success', data: { batchNo: answer.batchNo } }]);

    expect((await control(`/_sandbox/refunds/${answer.batchNo}/settle`, { status: 'fail' })).status).toBe(
      409,
    );
    expect((await control('/_sandbox/refunds/R0/settle', { status: 'fail' })).status).toBe(404);
    expect((await control(`/_sandbox/refunds/${answer.batchNo}/settle`, { status: 'maybe' })).status).toBe(
      400,
    );
    expect((await control('/_sandbox/refunds/next', { outcome: 'later' })).status).toBe(400);
  });

  it('a pending refund settled as failed frees its amount; rules can aim at one trade and repeat', async () => {
    const paid = await charge();
    const other = await charge(undefined, false);
    fx.sb.addRefundOutcome({ outcome: 'pending', tradeNo: paid.tradeNo, times: 'always' });
    expect((await refund(other.tradeNo, '1.00')).refundStatus).toBe('success');
    const first = await refund(paid.tradeNo, '10.50', { refundType: '1' });
    expect(first.refundStatus).toBe('pending');
    fx.sb.settleRefund(first.batchNo, { status: 'fail', reason: 'Card account closed' });
    await delivered(2);
    expect(refundEvents()).toMatchObject([{ type: 'refund.fail', data: { reason: 'Card account closed' } }]);
    expect((await refund(paid.tradeNo, '10.50', { refundType: '1' })).refundStatus).toBe('pending');
    expect(fx.sb.refundOutcomes()).toHaveLength(1);
    const cleared = await fetch(`${fx.sb.url}/_sandbox/refunds/next`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(fx.sb.refundOutcomes()).toHaveLength(0);
  });

  it('refund notifications follow the callback engine: retries until success, chaos copies', async () => {
    const paid = await charge();
    fx.receiver.respond = (index) => (index === 1 ? 'busy' : 'success');
    fx.sb.setChaos({ copies: 2 });
    const answer = await refund(paid.tradeNo, '1.00');
    const deliveries = await delivered(3);
    const notices = deliveries.filter((delivery) => delivery.batchNo === answer.batchNo);
    expect(notices).toHaveLength(2);
    expect(notices.map((delivery) => delivery.chaos)).toEqual(['copy 1 of 2', 'copy 2 of 2']);
    expect(
      notices
        .flatMap((delivery) => delivery.attempts)
        .map((attempt) => attempt.result)
        .sort(),
    ).toEqual(['delivered', 'delivered', 'rejected']);
    expect(refundEvents().every((event) => event.data.batchNo === answer.batchNo)).toBe(true);
  });
});

describe('dashboard', () => {
  it('shows refunds per order, with settle buttons for pending ones', async () => {
    const paid = await charge();
    const done = await refund(paid.tradeNo, '2.00');
    fx.sb.addRefundOutcome({ outcome: 'pending' });
    const held = await refund(paid.tradeNo, '3.00');
    const html = await (await fetch(`${fx.sb.url}/`)).text();
    const row = html.split('<tr>').find((part) => part.includes(paid.orderNo) && part.includes('refund '));
    expect(row).toContain(`refund ${done.batchNo} 2.00 <span class="success">success</span>`);
    expect(row).toContain(`refund ${held.batchNo} 3.00 <span class="pending">pending</span>`);
    expect(row).toContain('left to refund 5.50');
    expect(html).toContain(`/_sandbox/refunds/${held.batchNo}/settle`);
    const settled = await fetch(`${fx.sb.url}/_sandbox/refunds/${held.batchNo}/settle`, {
      method: 'POST',
      body: new URLSearchParams({ status: 'success' }),
      redirect: 'manual',
    });
    expect(settled.status).toBe(303);
    expect(fx.sb.refund(held.batchNo)?.refundStatus).toBe('success');
    const form = await fetch(`${fx.sb.url}/_sandbox/refunds/next`, {
      method: 'POST',
      body: new URLSearchParams({ outcome: 'fail', reason: '', tradeNo: '', times: '2' }),
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(fx.sb.refundOutcomes()).toMatchObject([{ outcome: 'fail', remaining: 2 }]);
  });
});
