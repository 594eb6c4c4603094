/**
 * Refunds through the gateway (issue #14) against the real Vendure server and the sandbox: the Admin
 * API's refundOrder sends a gateway refund, the refund notice settles or fails it, duplicates and lost
 * notices change nothing they should not, and forged notices change nothing at all.
 */
import { GatewayClient } from '@gatewaykit/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { limitedAdmin } from './support/admins';
import { rawGraphql } from './support/attacker';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { type ReconcileItem, reconcileItems } from './support/reconcile';
import {
  asRefund,
  chargebackWithLostNotice,
  paidCardOrder,
  paymentsWithRefunds,
  refundById,
  refundOrder,
  refundTransitions,
  usd,
} from './support/refunds';
import {
  adminOrder,
  CARDS,
  cardInput,
  eventually,
  orderNotes,
  prepareOrder,
  setPaymentMethodEnabled,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';
import { TEST_DATABASE } from './support/test-database';

/** A second gateway method whose key the attacker knows (e.g. a staff test method). */
const KNOWN_KEY_METHOD = {
  code: 'gatewaykit-staff-test',
  gatewayNo: '99990001',
  signKey: 'publicly-known-test-key',
};

/** Refunds given this reason are rolled back once created, after the gateway was asked (the demo's failing-refund-process.ts). */
const ROLLBACK_REASON = 'test: roll back after the gateway made it';

describe('refunds through the gateway (Admin API refundOrder, refund notices)', () => {
  let stack: Stack;
  let token: string;
  beforeAll(async () => {
    stack = await startStack({}, { GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON: ROLLBACK_REASON });
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    token = activeChannel.token;
    await stack.admin.query(
      `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
      {
        input: {
          code: KNOWN_KEY_METHOD.code,
          enabled: true,
          handler: {
            code: 'gatewaykit',
            arguments: [
              { name: 'gatewayNo', value: KNOWN_KEY_METHOD.gatewayNo },
              { name: 'signKey', value: KNOWN_KEY_METHOD.signKey },
              { name: 'environment', value: 'custom' },
              { name: 'baseUrl', value: stack.sandbox.url },
              { name: 'mode', value: 'card' },
            ],
          },
          translations: [{ languageCode: 'en', name: KNOWN_KEY_METHOD.code, description: '' }],
        },
      },
    );
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearRefundOutcomes();
    stack.sandbox.clearFaults();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const notes = (orderId: string) => orderNotes(stack.admin, orderId);

  const settled = (orderId: string, refundId: string, state = 'Settled') =>
    eventually(
      () => refundById(stack.admin, orderId, refundId),
      (refund) => refund.state === state,
    );

  it('pay, full refund from the Admin API: one gateway refund, Settled by the answer that says it was made; its notice repeats it', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const refund = asRefund(await refundOrder(stack.admin, payment.id, payment.amount));
    expect(refund.state).toBe('Settled');
    const [atGateway, ...more] = stack.sandbox.refunds(payment.transactionId);
    expect(more).toHaveLength(0);
    expect(atGateway).toMatchObject({
      refundType: '1',
      refundAmount: usd(payment.amount),
      refundCurrency: 'USD',
      refundReason: 'customer request',
      merTrackNo: `${order.code}-P${payment.id}-R1`,
    });
    expect(refund.transactionId).toBe(atGateway?.batchNo);
    expect(refund.metadata).toMatchObject({ gatewaykit: 'gateway', merTrackNo: atGateway?.merTrackNo });

    const done = await settled(order.id, refund.id);
    expect(done.state).toBe('Settled');
    expect(done.metadata).toMatchObject({ status: 'succeeded', batchNo: atGateway?.batchNo });
    const delivered = await stack.sandbox.waitForCallbacks(
      (all) => all.some((c) => c.batchNo === atGateway?.batchNo && c.state === 'delivered'),
      20_000,
    );
    const deliveries = delivered.filter((c) => c.batchNo === atGateway?.batchNo);
    expect(deliveries.map((c) => [c.type, c.attempts.at(-1)?.response])).toEqual([
      ['refund.success', 'success'],
    ]);
    expect((await refundTransitions(stack.admin, order.id, refund.id)).map((e) => e.data.to)).toEqual([
      'Settled',
    ]);
    // The payment itself is unchanged; the whole amount is refunded in Vendure.
    const [after] = await paymentsWithRefunds(stack.admin, order.id);
    expect(after?.state).toBe('Settled');
    expect(await refundOrder(stack.admin, payment.id, 1)).toMatchObject({ __typename: 'RefundAmountError' });
  });

  it('two partial refunds, then an over-refund: Vendure refuses what it knows; the gateway refuses what it knows, Failed with its message', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const first = asRefund(await refundOrder(stack.admin, payment.id, 100, 'damaged box'));
    const second = asRefund(await refundOrder(stack.admin, payment.id, 250, 'late delivery'));
    await settled(order.id, first.id);
    await settled(order.id, second.id);
    expect(
      stack.sandbox.refunds(payment.transactionId).map((r) => [r.refundType, r.refundAmount, r.merTrackNo]),
    ).toEqual([
      ['2', '1.00', `${order.code}-P${payment.id}-R1`],
      ['2', '2.50', `${order.code}-P${payment.id}-R2`],
    ]);

    // More than is left: Vendure's own check refuses it, nothing reaches the gateway.
    const left = payment.amount - 350;
    const tooMuch = await refundOrder(stack.admin, payment.id, left + 1);
    expect(tooMuch).toMatchObject({ __typename: 'RefundAmountError' });
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(2);

    // The merchant refunded 5.00 in the gateway's portal, outside Vendure, and its notice is late: the
    // gateway has less left than Vendure knows.
    stack.sandbox.setChaos({ drop: true });
    const portal = new GatewayClient({ ...DEMO_MERCHANTS.main, baseUrl: stack.sandbox.url });
    let portalBatchNo: string;
    try {
      ({ batchNo: portalBatchNo } = await portal.refunds.create({
        merTrackNo: `portal-${order.code}`,
        refundAmount: '5.00',
        refundReason: 'portal refund',
        refundType: '2',
        tradeNo: payment.transactionId,
      }));
    } finally {
      await portal.close();
    }
    const refused = asRefund(await refundOrder(stack.admin, payment.id, left));
    expect(refused.state).toBe('Failed');
    const message = `refundAmount ${usd(left)} USD is more than the ${usd(left - 500)} USD left to refund on tradeNo ${payment.transactionId}`;
    expect(refused.metadata).toMatchObject({ status: 'refused' });
    expect(String(refused.metadata?.message)).toContain(message);
    expect(await notes(order.id)).toContainEqual(
      expect.stringContaining(`Refund failed, nothing was refunded`),
    );
    expect((await notes(order.id)).join('\n')).toContain(message);
    // The portal refund's notice, delivered now, names no Vendure refund: noted for the merchant, kept on
    // the payment, nothing else changed.
    stack.sandbox.setChaos({});
    const late = await eventually(
      async () => stack.sandbox.callbacks().filter((c) => c.batchNo === portalBatchNo),
      (kept) => kept.length > 0,
    );
    for (const delivery of late) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    const noted = await eventually(
      () => notes(order.id),
      (all) => all.some((n) => n.includes(`merTrackNo portal-${order.code}`)),
    );
    expect(noted.join('\n')).toContain('matches no gateway refund of this order in Vendure');
    const refunds = (await paymentsWithRefunds(stack.admin, order.id)).flatMap((p) => p.refunds);
    expect(refunds.map((r) => r.state)).toEqual(['Settled', 'Settled', 'Failed']);
    // Known now, the portal refund blocks every refund through Vendure, which does not count it: the
    // rest is refunded in the portal. Nothing is sent.
    const sentBefore = stack.sandbox.refunds(payment.transactionId).length;
    const blocked = asRefund(await refundOrder(stack.admin, payment.id, left - 500));
    expect(blocked.state).toBe('Failed');
    expect(String(blocked.metadata?.message)).toContain(
      `the payment was refunded outside the store (batchNo ${portalBatchNo})`,
    );
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(sentBefore);
  });

  it("yen, in the second channel with its own merchant: refunded without decimals, settled by that merchant's notice", async () => {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const { order, payment } = await paidCardOrder(stack, 'jp-gatewaykit-card', JP_CHANNEL_TOKEN);
    const refund = asRefund(await refundOrder(jpAdmin, payment.id, 50000));
    const [atGateway] = stack.sandbox.refunds(payment.transactionId);
    expect(atGateway).toMatchObject({ refundAmount: '500', refundCurrency: 'JPY', refundType: '2' });
    expect(atGateway?.gatewayNo).toBe(DEMO_MERCHANTS.jp.gatewayNo);
    const done = await eventually(
      () => refundById(jpAdmin, order.id, refund.id),
      (r) => r.state === 'Settled',
    );
    expect(done.state).toBe('Settled');
  });

  it('a refund the gateway answers pending: its notice, lost on the way, then redelivered, settles it', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 300));
    expect(refund.state).toBe('Pending');
    stack.sandbox.setChaos({ drop: true });
    stack.sandbox.settleRefund(refund.transactionId ?? '', { status: 'success' });
    const dropped = stack.sandbox.callbacks().filter((c) => c.batchNo === refund.transactionId);
    expect(dropped.map((c) => [c.type, c.state])).toEqual([['refund.success', 'dropped']]);
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Pending');
    stack.sandbox.setChaos({});
    for (const delivery of dropped) await stack.sandbox.redeliver(delivery.id);
    expect((await settled(order.id, refund.id)).state).toBe('Settled');
  });

  it('duplicate refund notices (concurrent copies, redeliveries) change nothing after the first', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.setChaos({ copies: 5 });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, payment.amount));
    const deliveries = await stack.sandbox.waitForCallbacks(
      (all) => all.filter((c) => c.batchNo === refund.transactionId && c.state === 'delivered').length >= 5,
      20_000,
    );
    const mine = deliveries.filter((c) => c.batchNo === refund.transactionId);
    expect(mine.every((c) => c.attempts.at(-1)?.response === 'success')).toBe(true);
    stack.sandbox.setChaos({});
    const again = await stack.sandbox.redeliver(mine[0]?.id ?? '');
    expect(again?.attempts.at(-1)?.response).toBe('success');
    expect((await settled(order.id, refund.id)).state).toBe('Settled');
    expect((await refundTransitions(stack.admin, order.id, refund.id)).map((e) => e.data.to)).toEqual([
      'Settled',
    ]);
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);
  });

  it('a refund the gateway answers as failed is Failed at once: nothing was refunded, and it says so', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'fail', reason: 'Issuer refused the credit' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 400));
    expect(refund.state).toBe('Failed');
    expect(refund.metadata).toMatchObject({ status: 'refused' });
    expect(await notes(order.id)).toContainEqual(
      expect.stringContaining('Refund failed, nothing was refunded: the gateway answered refund'),
    );
    // Its notice repeats the failure and changes nothing; the amount can be refunded again.
    const [atGateway] = stack.sandbox.refunds(payment.transactionId);
    await stack.sandbox.waitForCallbacks(
      (all) => all.some((c) => c.batchNo === atGateway?.batchNo && c.state === 'delivered'),
      20_000,
    );
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Failed');
    expect(asRefund(await refundOrder(stack.admin, payment.id, 400)).state).toBe('Settled');
  });

  it('a refund the gateway fails after answering pending is visible as Failed, with the reason in an order note', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 400));
    expect(refund.state).toBe('Pending');
    stack.sandbox.settleRefund(refund.transactionId ?? '', {
      status: 'fail',
      reason: 'Issuer refused the credit',
    });
    const failed = await settled(order.id, refund.id, 'Failed');
    expect(failed.metadata).toMatchObject({ status: 'failed', message: 'Issuer refused the credit' });
    expect(await notes(order.id)).toContainEqual(
      `Refund ${refund.id} (4.00 USD, batchNo ${refund.transactionId}) failed at the gateway: Issuer refused the credit. Nothing was refunded; the amount can be refunded again.`,
    );
  });

  it("the gateway's answer to the refund is lost: Pending, never sent again, and its notice (by merTrackNo) settles it", async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addFault({ route: 'createRefund', kind: 'commit-then-drop' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 500));
    expect(refund).toMatchObject({ state: 'Pending', transactionId: '' });
    expect(refund.metadata).toMatchObject({
      status: 'unknown',
      merTrackNo: `${order.code}-P${payment.id}-R1`,
    });
    const [atGateway, ...more] = stack.sandbox.refunds(payment.transactionId);
    expect(more).toHaveLength(0);
    const done = await settled(order.id, refund.id);
    expect(done.transactionId).toBe(atGateway?.batchNo);
    // Sent once: the lost answer is never retried.
    expect(
      stack.sandbox.requests().filter((r) => r.operation === 'createRefund' && r.body?.includes(order.code)),
    ).toHaveLength(1);
    expect((await notes(order.id)).join('\n')).toContain(
      `Refund ${atGateway?.merTrackNo} is pending: The gateway's answer was lost`,
    );
  });

  it('a refund pending at the gateway stays Pending until the gateway settles it', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 100));
    // No notice was sent for it, and a reconciliation run (which asks the gateway) leaves it Pending.
    expect(stack.sandbox.callbacks().filter((c) => c.batchNo === refund.transactionId)).toEqual([]);
    await reconcileItems(stack.admin);
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Pending');
    stack.sandbox.settleRefund(refund.transactionId ?? '', { status: 'success' });
    expect((await settled(order.id, refund.id)).state).toBe('Settled');
  });

  it('two refunds of the whole payment at once: one gateway refund, and no second refund in Vendure', async () => {
    const { order, payment } = await paidCardOrder(stack);
    // The gateway holds its answers a moment, so both admin requests are in createRefund together.
    stack.sandbox.addFault({ route: 'createRefund', kind: 'latency', ms: 300, times: 2 });
    const results = await Promise.all([
      refundOrder(stack.admin, payment.id, payment.amount),
      refundOrder(stack.admin, payment.id, payment.amount),
    ]);
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);
    const [atGateway] = stack.sandbox.refunds(payment.transactionId);
    // Both passed Vendure's own check (it read no refunds yet); the later one, in the payment's refund
    // section, sees the earlier refund: Failed, nothing sent, never a second refund of the same batchNo.
    const refunds = results.map(asRefund);
    expect(refunds.filter((r) => r.transactionId === atGateway?.batchNo)).toHaveLength(1);
    expect(refunds.map((r) => r.state).sort()).toEqual(['Failed', 'Settled']);
    const winner = refunds.find((r) => r.transactionId === atGateway?.batchNo);
    expect((await settled(order.id, winner?.id ?? '?')).state).toBe('Settled');
    const stored = (await paymentsWithRefunds(stack.admin, order.id)).flatMap((p) => p.refunds);
    expect(stored.filter((r) => r.state !== 'Failed').map((r) => r.id)).toEqual([winner?.id]);
    for (const loser of stored.filter((r) => r.id !== winner?.id)) {
      expect(loser.metadata).toMatchObject({ status: 'refused' });
      expect(String(loser.metadata?.message)).toContain('left to refund');
    }
  });

  it('cancelPayment on a settled gateway payment is refused (the gateway has no void), a declined one is cancelled', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const cancel = async (id: string) =>
      (
        await stack.admin.query<{ cancelPayment: Record<string, unknown> }>(
          `mutation ($id: ID!) { cancelPayment(id: $id) { __typename
             ... on Payment { state } ... on CancelPaymentError { paymentErrorMessage } } }`,
          { id },
        )
      ).cancelPayment;
    expect(await cancel(payment.id)).toEqual({
      __typename: 'CancelPaymentError',
      paymentErrorMessage: 'the gateway has no void; refund the payment instead',
    });
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments.map((p) => p.state)).toEqual(['Settled']);
    expect(after.state).toBe('PaymentSettled');

    // A declined payment took no money: cancelling it only tidies Vendure's record, as before.
    const shop = shopClient(stack);
    const declinedOrder = await prepareOrder(shop);
    const declined = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.decline),
    });
    expect(declined.__typename).toBe('GatewaykitPaymentError');
    const [row] = (await adminOrder(stack.admin, declinedOrder.id)).payments;
    expect(row?.state).toBe('Declined');
    expect(await cancel(row?.id ?? '?')).toEqual({ __typename: 'Payment', state: 'Cancelled' });
  });

  it('a chargeback raised in the sandbox appears in the order history and in the payment metadata the dashboard block reads', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const chargeback = stack.sandbox.raiseChargeback({
      tradeNo: payment.transactionId,
      amount: usd(payment.amount),
      reason: 'D4755-Non-Receipt of Goods or Services',
      replyDeadline: '2026-12-24',
    });
    const entry = {
      batchNo: chargeback.batchNo,
      tradeNo: payment.transactionId,
      amount: usd(payment.amount),
      currency: 'USD',
      reason: 'D4755-Non-Receipt of Goods or Services',
      replyDeadline: '2026-12-24',
      cpdDate: chargeback.cpdDate,
      noticeDate: chargeback.noticeDate,
    };
    const [withChargeback] = await eventually(
      () => paymentsWithRefunds(stack.admin, order.id),
      ([p]) => Array.isArray(p?.metadata.chargebacks),
    );
    expect(withChargeback?.metadata.chargebacks).toEqual([entry]);
    const text = `Chargeback ${chargeback.batchNo} on gateway trade ${payment.transactionId}: ${usd(payment.amount)} USD, reason: D4755-Non-Receipt of Goods or Services, reply deadline: 2026-12-24`;
    expect((await notes(order.id)).filter((n) => n.startsWith(text))).toHaveLength(1);
    // The same notice again, accepted: nothing added.
    const notices = stack.sandbox.callbacks().filter((c) => c.batchNo === chargeback.batchNo);
    expect(notices.length).toBeGreaterThan(0);
    for (const delivery of notices) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    const [again] = await paymentsWithRefunds(stack.admin, order.id);
    expect(again?.metadata.chargebacks).toEqual([entry]);
    expect((await notes(order.id)).filter((n) => n.startsWith(text))).toHaveLength(1);
    // The shopper's view of the payment never shows it.
    expect(Object.keys(again?.metadata.public as object)).not.toContain('chargebacks');
    expect(again?.state).toBe('Settled');
  });

  it("a chargeback whose every notice was lost is kept by the reconciliation from the gateway's list and noted once; the notice delivered late adds nothing", async () => {
    const { order, payment } = await paidCardOrder(stack);
    const { chargeback, lost } = await chargebackWithLostNotice(stack, payment.transactionId, usd(500));
    const chargebacksOf = async () =>
      (await paymentsWithRefunds(stack.admin, order.id))[0]?.metadata.chargebacks;
    const noted = async () =>
      (await notes(order.id)).filter((n) =>
        n.startsWith(`Chargeback ${chargeback.batchNo} on gateway trade`),
      );
    expect(await chargebacksOf()).toBeUndefined();

    const mine = (items: ReconcileItem[]) => items.filter((item) => item.reference === chargeback.batchNo);
    const listed = () => stack.sandbox.requests().filter((r) => r.path.includes('/chargebacks')).length;
    const listedBefore = listed();
    expect(mine(await reconcileItems(stack.admin))).toEqual([
      expect.objectContaining({ kind: 'chargeback', orderCode: order.code, after: 'recorded' }),
    ]);
    // By default the run asks the gateway's list (180 days in 30-day slices, per channel and method).
    expect(listed() - listedBefore).toBeGreaterThanOrEqual(7);
    expect(await chargebacksOf()).toEqual([
      expect.objectContaining({
        batchNo: chargeback.batchNo,
        tradeNo: payment.transactionId,
        amount: usd(500),
        currency: 'USD',
        reason: 'D4837-No Cardholder Authorization',
        replyDeadline: '2026-12-24',
      }),
    ]);
    expect(await noted()).toHaveLength(1);

    // A second run, and the lost notice delivered late: nothing added, nothing noted again.
    expect(mine(await reconcileItems(stack.admin))).toEqual([]);
    stack.sandbox.setChaos({});
    for (const delivery of lost) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    expect(await chargebacksOf()).toHaveLength(1);
    expect(await noted()).toHaveLength(1);
  });

  it('attack: a refund of money a chargeback already returned is refused and nothing reaches the gateway; the undisputed rest can be refunded', async () => {
    const { shop, order, payment } = await paidCardOrder(stack);
    // Disputed: all but 1.00 of the payment.
    const chargeback = stack.sandbox.raiseChargeback({
      tradeNo: payment.transactionId,
      amount: usd(payment.amount - 100),
      reason: 'D4837-No Cardholder Authorization',
    });
    await eventually(
      () => paymentsWithRefunds(stack.admin, order.id),
      ([p]) => Array.isArray(p?.metadata.chargebacks),
    );
    const refused = asRefund(await refundOrder(stack.admin, payment.id, 101));
    expect(refused.state).toBe('Failed');
    expect(refused.metadata).toMatchObject({ status: 'refused' });
    expect(String(refused.metadata?.message)).toContain(
      `charged back (chargeback ${chargeback.batchNo}): the cardholder's bank has already returned that money, so only 1.00 USD is left to refund, not 1.01 USD`,
    );
    expect(stack.sandbox.refunds(payment.transactionId)).toEqual([]);
    // What the chargeback left: refunded at the gateway as usual.
    const rest = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect((await settled(order.id, rest.id)).state).toBe('Settled');
    expect(stack.sandbox.refunds(payment.transactionId).map((r) => r.refundAmount)).toEqual(['1.00']);

    // The shopper's view of the refund carries none of the admin text (found by review).
    const { orderByCode } = await shop.query<{
      orderByCode: { payments: { refunds: { id: string; metadata: unknown }[] }[] };
    }>(`query ($code: String!) { orderByCode(code: $code) { payments { refunds { id metadata } } } }`, {
      code: order.code,
    });
    expect(orderByCode.payments.flatMap((p) => p.refunds)).toEqual([
      { id: refused.id, metadata: {} },
      { id: rest.id, metadata: {} },
    ]);
  });

  it('attack: a chargeback on a payment also refunded in the merchant portal blocks every refund: what is left cannot be told (found by review)', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const portal = new GatewayClient({ ...DEMO_MERCHANTS.main, baseUrl: stack.sandbox.url });
    try {
      await portal.refunds.create({
        merTrackNo: `portal-${order.code}`,
        refundAmount: '1.00',
        refundReason: 'portal refund',
        refundType: '2',
        tradeNo: payment.transactionId,
      });
    } finally {
      await portal.close();
    }
    await eventually(
      () => paymentsWithRefunds(stack.admin, order.id),
      ([p]) => Array.isArray(p?.metadata.portalRefunds),
    );
    stack.sandbox.raiseChargeback({ tradeNo: payment.transactionId, amount: '1.00', reason: 'D4755' });
    await eventually(
      () => paymentsWithRefunds(stack.admin, order.id),
      ([p]) => Array.isArray(p?.metadata.chargebacks),
    );
    const refused = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(refused.state).toBe('Failed');
    expect(String(refused.metadata?.message)).toContain('refunded outside the store');
    expect(stack.sandbox.refunds(payment.transactionId).map((r) => r.merTrackNo)).toEqual([
      `portal-${order.code}`,
    ]);
  });

  it('a chargeback for a payment whose method was disabled since is still verified and recorded, not answered 404 (found by review)', async () => {
    const { order, payment } = await paidCardOrder(stack);
    await setPaymentMethodEnabled(stack.admin, 'gatewaykit-card', false);
    try {
      const chargeback = stack.sandbox.raiseChargeback({
        tradeNo: payment.transactionId,
        amount: usd(payment.amount),
        reason: 'D4755-Non-Receipt of Goods or Services',
        replyDeadline: '2026-12-24',
      });
      const [withChargeback] = await eventually(
        () => paymentsWithRefunds(stack.admin, order.id),
        ([p]) => Array.isArray(p?.metadata.chargebacks),
        10_000,
      );
      expect(withChargeback?.metadata.chargebacks).toMatchObject([{ batchNo: chargeback.batchNo }]);
      // The sandbox notes the answer once the request has ended, after the store recorded it.
      const delivered = await stack.sandbox.waitForCallbacks(
        (all) => all.some((c) => c.batchNo === chargeback.batchNo && c.state === 'delivered'),
        10_000,
      );
      const answers = delivered
        .filter((c) => c.batchNo === chargeback.batchNo)
        .flatMap((c) => c.attempts.map((a) => [a.httpStatus, a.response]));
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.every(([status, body]) => status === 200 && body === 'success')).toBe(true);
    } finally {
      await setPaymentMethodEnabled(stack.admin, 'gatewaykit-card', true);
    }
  });

  describe('attacks', () => {
    async function pendingRefund() {
      const paid = await paidCardOrder(stack);
      stack.sandbox.addRefundOutcome({ outcome: 'pending' });
      const refund = asRefund(await refundOrder(stack.admin, paid.payment.id, 200));
      const data = {
        orderNo: `${paid.order.code}-1`,
        tradeNo: paid.payment.transactionId,
        orderAmount: usd(paid.payment.amount),
        orderCurrency: 'USD',
        batchNo: refund.transactionId ?? '',
        merTrackNo: String(refund.metadata?.merTrackNo),
        amount: '2.00',
        currency: 'USD',
        reason: 'customer request',
        noticeDate: '2026-01-01 00:00:00',
      };
      return { ...paid, refund, data };
    }

    /** An order of the shop waiting for payment, as staff would take a phone or bank payment for it. */
    async function unpaidOrder(channelToken?: string) {
      const shop = shopClient(stack, channelToken);
      const order = await prepareOrder(shop);
      await shop.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
      return order;
    }

    async function manualPayment(
      admin: typeof stack.admin,
      orderId: string,
      method: string,
      tradeNo: string,
    ) {
      const { addManualPaymentToOrder } = await admin.query<{
        addManualPaymentToOrder: {
          __typename: string;
          payments?: { id: string; state: string; amount: number; transactionId: string }[];
        };
      }>(
        `mutation ($input: ManualPaymentInput!) { addManualPaymentToOrder(input: $input) { __typename
           ... on Order { payments { id state amount transactionId } } } }`,
        { input: { orderId, method, transactionId: tradeNo, metadata: {} } },
      );
      // The payment just added: the newest naming the trade (the order may hold an older one).
      const payment = addManualPaymentToOrder.payments
        ?.filter((p) => p.transactionId === tradeNo)
        .sort((a, b) => Number(a.id) - Number(b.id))
        .at(-1);
      if (!payment) throw new Error(`addManualPaymentToOrder: ${addManualPaymentToOrder.__typename}`);
      return payment;
    }

    it("a manual payment naming another order's trade number (or another channel's) refunds nothing at the gateway", async () => {
      // The victims: a paid order in this channel and one in the yen channel.
      const victim = await paidCardOrder(stack);
      const jpVictim = await paidCardOrder(stack, 'jp-gatewaykit-card', JP_CHANNEL_TOKEN);
      for (const tradeNo of [victim.payment.transactionId, jpVictim.payment.transactionId]) {
        // Staff with UpdateOrder record a "manual" payment under the gateway method, naming the trade.
        const order = await unpaidOrder();
        const forged = await manualPayment(stack.admin, order.id, 'gatewaykit-card', tradeNo);
        expect(forged.state).toBe('Settled');
        const refund = asRefund(await refundOrder(stack.admin, forged.id, Math.min(forged.amount, 500)));
        expect(refund.state).toBe('Failed');
        expect(refund.transactionId).toBeFalsy();
        expect(String(refund.metadata?.message)).toContain(
          `trade ${tradeNo} is not a payment of this order taken through gatewaykit-card: nothing was sent`,
        );
        expect(stack.sandbox.refunds(tradeNo)).toHaveLength(0);
      }
      // The real payments still refund as before.
      asRefund(await refundOrder(stack.admin, victim.payment.id, 100));
      expect(stack.sandbox.refunds(victim.payment.transactionId)).toHaveLength(1);
    });

    it("a manual payment naming the order's own trade (added after a modification raised the total) refunds nothing: the trade refunds through its own payment only (found by review)", async () => {
      const { order, payment } = await paidCardOrder(stack);
      const tradeNo = payment.transactionId;
      // Staff modify the paid order (a surcharge) and record the extra as a "manual" payment under the
      // gateway method, naming the order's own trade: two payments of one trade.
      const moved = async (state: string) => {
        const { transitionOrderToState } = await stack.admin.query<{
          transitionOrderToState: { __typename: string; state?: string; message?: string };
        }>(
          `mutation ($id: ID!, $state: String!) { transitionOrderToState(id: $id, state: $state) { __typename
             ... on Order { state } ... on ErrorResult { message } } }`,
          { id: order.id, state },
        );
        expect(transitionOrderToState, state).toMatchObject({ state });
      };
      await moved('Modifying');
      const { modifyOrder } = await stack.admin.query<{ modifyOrder: { __typename: string } }>(
        `mutation ($input: ModifyOrderInput!) { modifyOrder(input: $input) { __typename } }`,
        {
          input: {
            dryRun: false,
            orderId: order.id,
            surcharges: [{ description: 'gift wrap', sku: 'WRAP', price: 500, priceIncludesTax: true }],
          },
        },
      );
      expect(modifyOrder.__typename).toBe('Order');
      await moved('ArrangingAdditionalPayment');
      const manual = await manualPayment(stack.admin, order.id, 'gatewaykit-card', tradeNo);
      expect(manual.state).toBe('Settled');

      const refused = asRefund(await refundOrder(stack.admin, manual.id, 500));
      expect(refused.state).toBe('Failed');
      expect(String(refused.metadata?.message)).toContain(
        `trade ${tradeNo} is refunded through payment ${payment.id} of this order (Settled), not payment ${manual.id}: nothing was sent`,
      );
      expect(stack.sandbox.refunds(tradeNo)).toHaveLength(0);
      // The trade's own payment refunds what the gateway charged, once.
      expect(asRefund(await refundOrder(stack.admin, payment.id, payment.amount)).state).not.toBe('Failed');
      expect(stack.sandbox.refunds(tradeNo)).toHaveLength(1);
    });

    it("a refund notice signed with another method's key changes nothing", async () => {
      const { order, refund, data } = await pendingRefund();
      // The other method's own endpoint: its key verifies, but the order is not one of its attempts.
      const viaOwnUrl = await postSignedCallback({
        url: callbackUrl(stack.server.baseUrl, token, KNOWN_KEY_METHOD.code),
        gatewayNo: KNOWN_KEY_METHOD.gatewayNo,
        signKey: KNOWN_KEY_METHOD.signKey,
        type: 'refund.success',
        data,
      });
      expect(viaOwnUrl).toEqual({ status: 200, body: 'success' });
      // The victim method's endpoint: the other key does not verify, whichever gateway number it names.
      for (const gatewayNo of [KNOWN_KEY_METHOD.gatewayNo, DEMO_MERCHANTS.main.gatewayNo]) {
        const viaVictimUrl = await postSignedCallback({
          url: callbackUrl(stack.server.baseUrl, token, 'gatewaykit-card'),
          gatewayNo,
          signKey: KNOWN_KEY_METHOD.signKey,
          type: 'refund.success',
          data,
        });
        expect(viaVictimUrl.status).toBe(401);
      }
      expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Pending');
      // The gateway's own notice still settles it.
      stack.sandbox.settleRefund(refund.transactionId ?? '', { status: 'success' });
      expect((await settled(order.id, refund.id)).state).toBe('Settled');
    });

    it('a forged refund.success for a refund that does not exist (or of another amount) changes nothing', async () => {
      const { order, payment, refund, data } = await pendingRefund();
      const url = callbackUrl(stack.server.baseUrl, token, 'gatewaykit-card');
      const forge = (changes: Record<string, string>) =>
        postSignedCallback({
          url,
          ...DEMO_MERCHANTS.main,
          type: 'refund.success',
          data: { ...data, ...changes },
        });
      // A refund Vendure never made (as if the key leaked): acknowledged, noted, nothing refunded.
      expect(
        await forge({
          batchNo: 'R0000000000000000000001',
          merTrackNo: `${order.code}-P${payment.id}-R9`,
          amount: '9.00',
        }),
      ).toEqual({ status: 200, body: 'success' });
      // The real pending refund, with another amount: not applied, alerted.
      expect(await forge({ amount: '20.00' })).toEqual({ status: 200, body: 'success' });
      const refunds = (await paymentsWithRefunds(stack.admin, order.id)).flatMap((p) => p.refunds);
      expect(refunds.map((r) => [r.id, r.state])).toEqual([[refund.id, 'Pending']]);
      const all = (await notes(order.id)).join('\n');
      expect(all).toContain('batchNo R0000000000000000000001');
      expect(all).toContain('matches no gateway refund of this order in Vendure');
      expect(all).toContain(`for refund ${refund.id} ignored: it reports 20.00 USD, the refund is 2.00 USD`);
    });
  });

  it('attack: a refund whose admin request rolled back after the gateway made it is never sent again while its notice is held (PostgreSQL: its refund intent; sql.js: the gateway answers the repeated merTrackNo with the refund it made)', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.setChaos({ drop: true });
    const refundRequests = () =>
      stack.sandbox
        .requests()
        .filter((r) => r.path.endsWith('/refund') && r.body?.includes(payment.transactionId));
    const notes = (text: string) => orderNotes(stack.admin, order.id, text);

    await expect(refundOrder(stack.admin, payment.id, 500, ROLLBACK_REASON)).rejects.toThrow(
      /test refund process: failed after refund/,
    );
    // Made at the gateway, not recorded in Vendure.
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);
    expect((await paymentsWithRefunds(stack.admin, order.id))[0]?.refunds).toEqual([]);
    const [made] = stack.sandbox.refunds(payment.transactionId);

    if (TEST_DATABASE === 'sqljs') {
      // One connection: the intent rolled back with the Refund. The retry sends the same merTrackNo, and
      // the gateway answers with the refund it made (rolled back again by the same hook).
      await expect(refundOrder(stack.admin, payment.id, 500, ROLLBACK_REASON)).rejects.toThrow(
        /test refund process/,
      );
      expect(refundRequests().map((r) => r.body?.match(/"merTrackNo":"([^"]+)"/)?.[1])).toEqual([
        made?.merTrackNo,
        made?.merTrackNo,
      ]);
      expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);
      return;
    }

    // PostgreSQL: the intent outlived the transaction. The retry is refused before anything is sent.
    const retry = asRefund(await refundOrder(stack.admin, payment.id, 500));
    expect(retry.state).toBe('Failed');
    expect(retry.metadata?.message).toContain(
      `refund ${made?.merTrackNo} (5.00 USD) was sent to the gateway at`,
    );
    expect(retry.metadata?.message).toContain('but its record here was lost');
    expect(refundRequests()).toHaveLength(1);

    // Closing it needs the permission, in the order's channel, with a note.
    const CLOSE = `mutation ($merTrackNo: String!, $made: Boolean!, $note: String!) {
      gatewaykitCloseRefundIntent(merTrackNo: $merTrackNo, made: $made, note: $note) { closed reason } }`;
    type Closed = { gatewaykitCloseRefundIntent: { closed: boolean; reason: string } };
    const close = (variables: { merTrackNo?: string; made: boolean; note: string }, admin = stack.admin) =>
      admin.query<Closed>(CLOSE, variables).then((answer) => answer.gatewaykitCloseRefundIntent);
    const lost = { merTrackNo: made?.merTrackNo };
    const forbidden = await rawGraphql(await limitedAdmin(stack), CLOSE, {
      ...lost,
      made: false,
      note: 'none',
    });
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(
      await close({ ...lost, made: false, note: 'none' }, stack.admin.withChannel(JP_CHANNEL_TOKEN)),
    ).toEqual({
      closed: false,
      reason: `no refund ${made?.merTrackNo} in this channel`,
    });
    await expect(close({ ...lost, made: true, note: ' ' })).rejects.toThrow(/note: is required/);
    // Not made, while its notice may still come: refused.
    expect(await close({ ...lost, made: false, note: 'portal shows nothing yet' })).toMatchObject({
      closed: false,
      reason: expect.stringContaining('its notice may still come'),
    });

    // The portal shows it made: kept on the payment, so the rest is refunded in the portal, never here.
    expect(await close({ ...lost, made: true, note: 'the portal shows it made' })).toEqual({
      closed: true,
      reason: `refund ${made?.merTrackNo} closed as made: further refunds of this payment go through the merchant portal`,
    });
    expect(await notes(`Refund ${made?.merTrackNo} (5.00 USD, sent`)).toHaveLength(1);
    expect(await close({ ...lost, made: true, note: 'twice' })).toEqual({
      closed: false,
      reason: `refund ${made?.merTrackNo} is already closed`,
    });
    const next = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(next.state).toBe('Failed');
    expect(next.metadata?.message).toContain('refunded outside the store');
    expect(refundRequests()).toHaveLength(1);

    // The held notice, delivered late, says the same: noted once, nothing more sent.
    stack.sandbox.setChaos({});
    const held = stack.sandbox.callbacks().filter((c) => c.batchNo === made?.batchNo);
    expect(held.length).toBeGreaterThan(0);
    for (const delivery of held) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    expect(await notes('sent from here but never recorded')).toHaveLength(1);
    const after = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(after.state).toBe('Failed');
    expect(after.metadata?.message).toContain('refunded outside the store');
    expect(refundRequests()).toHaveLength(1);
  });
});
