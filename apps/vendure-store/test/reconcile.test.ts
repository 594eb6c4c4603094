/**
 * Reconciliation (issue #14) against the real Vendure server and the sandbox: payments and refunds
 * whose answer and notification were lost are settled from the gateway's own records, through the
 * Admin API mutation and through the scheduled task, exactly as a callback would have settled them.
 */

import { portalRefund } from '@gatewaykit/core/testing';
import { RECONCILE_RUN_LOCK } from '@gatewaykit/vendure-plugin';
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import type { GraphqlClient } from '../src/graphql-client';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { limitedAdmin } from './support/admins';
import { paymentRequests, rawGraphql } from './support/attacker';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { pendingChargeNobodyLists, type ReconcileItem } from './support/reconcile';
import { asRefund, paidCardOrder, refundById, refundOrder } from './support/refunds';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  eventually,
  prepareOrder,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const NO_RECORD_MS = 4000;

interface ReconcileResult {
  checked: number;
  changed: number;
  items: ReconcileItem[];
}

const RECONCILE = `mutation { gatewaykitReconcile { checked changed items { kind orderCode reference before after reason } } }`;

async function reconcile(admin: GraphqlClient): Promise<ReconcileResult> {
  return (await admin.query<{ gatewaykitReconcile: ReconcileResult }>(RECONCILE)).gatewaykitReconcile;
}

const CLOSE_ATTEMPT = `mutation ($orderNo: String!, $note: String!) {
  gatewaykitCloseAttempt(orderNo: $orderNo, note: $note) { closed status reason } }`;

interface CloseAttemptResult {
  closed: boolean;
  status: string;
  reason: string;
}

async function closeAttempt(
  admin: GraphqlClient,
  orderNo: string,
  note: string,
): Promise<CloseAttemptResult> {
  return (await admin.query<{ gatewaykitCloseAttempt: CloseAttemptResult }>(CLOSE_ATTEMPT, { orderNo, note }))
    .gatewaykitCloseAttempt;
}

/** The server processes holding the scheduled run's database lock (PostgreSQL's pg_locks). */
async function runLockHolders(client: Client): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtext($1)::bigint & 4294967295)::oid",
    [RECONCILE_RUN_LOCK],
  );
  return rows.map((row) => row.pid);
}

describe('reconciliation of payments and refunds whose answer was lost', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      {},
      {
        GATEWAY_TIMEOUT_MS: '2000',
        // Everything without an answer is reconciled at once; no record 4 s after sending means none.
        GATEWAYKIT_RECONCILE_AFTER_MS: '0',
        GATEWAYKIT_RECONCILE_NO_RECORD_MS: String(NO_RECORD_MS),
        // Runs only when asked (mutation or the scheduler's trigger) while these tests watch.
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
      },
    );
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
    stack.sandbox.clearRefundOutcomes();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const pay = (shop: GraphqlClient) =>
    startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });

  /** A card charge the gateway made whose answer (commit-then-drop) and callback (chaos drop) were lost. */
  async function lostCharge() {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    stack.sandbox.setChaos({ drop: true });
    const started = await pay(shop);
    stack.sandbox.setChaos({});
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('success');
    const waiting = await adminOrder(stack.admin, order.id);
    expect(waiting.state).toBe('ArrangingPayment');
    expect(waiting.payments).toHaveLength(0);
    return { shop, order };
  }

  it('commit-then-drop on the charge and its callback dropped: the reconciliation finds the trade, the order completes exactly once', async () => {
    const { order } = await lostCharge();
    const run = await reconcile(stack.admin);
    expect(run.items.filter((i) => i.orderCode === order.code)).toEqual([
      {
        kind: 'attempt',
        orderCode: order.code,
        reference: `${order.code}-1`,
        before: 'unknown',
        after: 'succeeded',
        reason: expect.stringContaining('as success'),
      },
    ]);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => [p.state, p.transactionId])).toEqual([
      ['Settled', stack.sandbox.order(`${order.code}-1`)?.tradeNo],
    ]);
    expect(JSON.stringify(paid.history.items)).toContain(
      `Gateway reconciliation: payment attempt ${order.code}-1 unknown -> succeeded`,
    );
    // A second run has nothing left to do for it, and the late callback is a duplicate.
    expect((await reconcile(stack.admin)).items.filter((i) => i.orderCode === order.code)).toEqual([]);
    const dropped = stack.sandbox.callbacks().filter((c) => c.orderNo === `${order.code}-1`);
    expect(dropped.length).toBeGreaterThan(0);
    for (const delivery of dropped) await stack.sandbox.redeliver(delivery.id);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments).toHaveLength(1);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  it('a trade the gateway never recorded ends failed after the threshold and frees the order for a new payment', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    // The charge never reaches the gateway's books: the request hangs and the client gives up.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'hang' });
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    expect(stack.sandbox.order(`${order.code}-1`)).toBeUndefined();
    // Still within the threshold: the charge may be on its way, nothing changes.
    const early = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(early).toMatchObject({
      before: 'unknown',
      after: 'unknown',
      reason: expect.stringContaining('still pending'),
    });
    expect(await pay(shop)).toMatchObject({
      __typename: 'GatewaykitPaymentPending',
      orderNo: `${order.code}-1`,
    });

    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));
    const late = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(late).toMatchObject({ before: 'unknown', after: 'failed' });
    const failed = await adminOrder(stack.admin, order.id);
    expect(failed.state).toBe('ArrangingPayment');
    expect(failed.payments.map((p) => [p.state, p.metadata.status])).toEqual([['Declined', 'failed']]);
    // The claim is free: a new attempt pays the order, once.
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
    expect(stack.sandbox.order(`${order.code}-2`)?.orderStatus).toBe('success');
  });

  it('a gateway page whose answer was lost (so never shown to the shopper): failed once it has expired, and the order is paid by a new page (found by a crash-window review)', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'checkoutPayment', kind: 'commit-then-drop' });
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('pending');
    stack.sandbox.clearFaults();
    // Blocked while it may still be answered: another page is not made.
    expect(await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' })).toMatchObject({
      __typename: 'GatewaykitPaymentPending',
      orderNo: `${order.code}-1`,
    });

    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));
    const late = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(late).toMatchObject({
      before: 'unknown',
      after: 'failed',
      reason: expect.stringContaining('the answer naming the page never arrived'),
    });
    // A new page pays the order, once.
    const again = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    expect(again).toMatchObject({ __typename: 'GatewaykitPaymentRedirect', orderNo: `${order.code}-2` });
    if (again.__typename !== 'GatewaykitPaymentRedirect') return;
    await completeRedirect(again.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
  });

  /**
   * A pending charge the gateway gave a trade id, whose callbacks are lost and which the gateway's
   * read side does not list: past the no-record threshold the reconciliation leaves it open for a person.
   */
  async function acknowledgedButUnlisted() {
    const { shop, order, orderNo, tradeNo } = await pendingChargeNobodyLists(stack);
    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));

    const held = (await reconcile(stack.admin)).items.find((i) => i.reference === orderNo);
    expect(held).toMatchObject({
      before: 'pending',
      after: 'pending',
      reason: expect.stringContaining('look it up in the merchant portal'),
    });
    expect(held?.reason).toContain(`as trade ${tradeNo}`);
    const open = await adminOrder(stack.admin, order.id);
    expect(open.state).toBe('ArrangingPayment');
    expect(open.payments).toEqual([]);
    // Not freed: the shopper's second try is the same open attempt, and nothing new is charged.
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo });
    expect(stack.sandbox.order(`${order.code}-2`)).toBeUndefined();
    return { shop, order, orderNo, tradeNo };
  }

  it('attack: a pending charge the gateway gave a trade id but does not list is left open for a person, then settled once listed', async () => {
    const { order, orderNo, tradeNo } = await acknowledgedButUnlisted();
    stack.sandbox.clearFaults();
    const settled = (await reconcile(stack.admin)).items.find((i) => i.reference === orderNo);
    expect(settled).toMatchObject({ before: 'pending', after: 'succeeded' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => [p.state, p.transactionId])).toEqual([['Settled', tradeNo]]);
    expect((await reconcile(stack.admin)).items.filter((i) => i.reference === orderNo)).toEqual([]);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  /**
   * Money of a charge left open for a person given back at the gateway before the store recorded its
   * success (`giveBack`), then the trade is listed: the success is recorded, and it never settles the
   * order (found by review).
   */
  async function givenBackThenListed(giveBack: (tradeNo: string, amount: string) => Promise<unknown>) {
    const { shop, order, orderNo, tradeNo } = await acknowledgedButUnlisted();
    stack.sandbox.setChaos({});
    const amount = stack.sandbox.order(orderNo)!.orderAmount;
    await giveBack(tradeNo, amount);
    await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => JSON.stringify(o.history.items).includes(tradeNo),
    );
    stack.sandbox.clearFaults();
    const listed = (await reconcile(stack.admin)).items.find((i) => i.reference === orderNo);
    expect(listed).toMatchObject({ before: 'pending', after: 'succeeded' });
    const held = await adminOrder(stack.admin, order.id);
    expect(held.state).toBe('ArrangingPayment');
    expect(held.payments).toEqual([]);
    expect(stack.server.output()).toContain(`PAID BUT NOT APPLIED: order ${order.code}`);
    expect(stack.server.output()).toContain('was given back at the gateway before this success was recorded');
    // The shopper's retry charges nothing more.
    expect(await pay(shop)).not.toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  }

  it('attack: a charge left open for a person, refunded in the merchant portal before it is listed, never settles the order', async () => {
    await givenBackThenListed(async (tradeNo, amount) => {
      await portalRefund({ ...DEMO_MERCHANTS.main, baseUrl: stack.sandbox.url }, tradeNo, amount);
    });
  });

  it('attack: a trade declined first, refunded in the merchant portal, then succeeded after all never settles the order (found by review)', async () => {
    const { order, orderNo, tradeNo } = await acknowledgedButUnlisted();
    const kept = stack.sandbox.callbacks().filter((delivery) => delivery.orderNo === orderNo);
    expect(kept.length).toBeGreaterThan(0);
    // A signed failure of the trade is recorded first: a Declined payment of it.
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    const amount = stack.sandbox.order(orderNo)!.orderAmount;
    const failed = await postSignedCallback({
      url: callbackUrl(stack.server.baseUrl, activeChannel.token, 'gatewaykit-card'),
      ...DEMO_MERCHANTS.main,
      type: 'transaction.fail',
      data: {
        orderNo,
        tradeNo,
        orderStatus: 'fail',
        orderAmount: amount,
        orderCurrency: 'USD',
        orderInfo: 'declined',
      },
    });
    expect(failed).toEqual({ status: 200, body: 'success' });
    expect((await adminOrder(stack.admin, order.id)).payments.map((p) => p.state)).toEqual(['Declined']);
    stack.sandbox.setChaos({});
    const merTrackNo = await portalRefund(
      { ...DEMO_MERCHANTS.main, baseUrl: stack.sandbox.url },
      tradeNo,
      amount,
    );
    await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => JSON.stringify(o.history.items).includes(`merTrackNo ${merTrackNo}`),
    );
    // The gateway's success of the trade arrives after all.
    for (const delivery of kept) await stack.sandbox.redeliver(delivery.id);
    await eventually(
      async () => stack.server.output(),
      (output) => output.includes(`PAID BUT NOT APPLIED: order ${order.code}`),
    );
    const held = await adminOrder(stack.admin, order.id);
    expect(held.payments.map((p) => p.state)).toEqual(['Declined']);
    expect(held.state).not.toBe('PaymentSettled');
  });

  it('attack: a charge left open for a person, charged back before it is listed, never settles the order', async () => {
    await givenBackThenListed(async (tradeNo, amount) =>
      stack.sandbox.raiseChargeback({ tradeNo, amount, reason: 'D4837-No Cardholder Authorization' }),
    );
  });

  it('an attempt left open for a person is closed by the admin with a note: it fails, the order is freed and paid once by a new attempt', async () => {
    const { shop, order, orderNo } = await acknowledgedButUnlisted();
    const note = 'merchant portal shows no charge for this trade';
    expect(await closeAttempt(stack.admin, orderNo, note)).toEqual({
      closed: true,
      status: 'failed',
      reason: `closed by the merchant: ${note}`,
    });
    const freed = await adminOrder(stack.admin, order.id);
    expect(freed.state).toBe('ArrangingPayment');
    expect(freed.payments.map((p) => [p.state, p.metadata.status])).toEqual([['Declined', 'failed']]);
    expect(JSON.stringify(freed.history.items)).toContain(
      `Payment attempt ${orderNo} closed by superadmin: ${note}`,
    );
    // The reconciliation no longer looks at it, and the shopper pays with a new attempt, charged once.
    expect((await reconcile(stack.admin)).items.filter((i) => i.reference === orderNo)).toEqual([]);
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    expect(stack.sandbox.order(`${order.code}-2`)?.orderStatus).toBe('success');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(2);
    // Closing twice changes nothing.
    expect(await closeAttempt(stack.admin, orderNo, note)).toMatchObject({
      closed: false,
      status: 'failed',
      reason: expect.stringContaining('already failed'),
    });
  });

  it('attack: a shop client, or an administrator without the permission, cannot close an attempt', async () => {
    const { order } = await lostCharge();
    const variables = { orderNo: `${order.code}-1`, note: 'no charge' };
    const fromShop = await rawGraphql(shopClient(stack), CLOSE_ATTEMPT, variables);
    expect(fromShop.body.data ?? null).toBeNull();
    expect(fromShop.body.errors?.[0]?.message).toContain('Cannot query field "gatewaykitCloseAttempt"');

    const forbidden = await rawGraphql(await limitedAdmin(stack), CLOSE_ATTEMPT, variables);
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const untouched = await adminOrder(stack.admin, order.id);
    expect([untouched.state, untouched.payments]).toEqual(['ArrangingPayment', []]);
    // Still open: the reconciliation settles it as it would have.
    const run = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(run).toMatchObject({ before: 'unknown', after: 'succeeded' });
  });

  it('attack: a succeeded attempt is not closed', async () => {
    const { order } = await paidCardOrder(stack);
    expect(await closeAttempt(stack.admin, `${order.code}-1`, 'no charge')).toEqual({
      closed: false,
      status: 'succeeded',
      reason: `payment attempt ${order.code}-1 is already succeeded`,
    });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it("attack: an administrator cannot close another channel's open attempt", async () => {
    // An open attempt in the yen channel: its charge's answer and callback were lost.
    const jpShop = shopClient(stack, JP_CHANNEL_TOKEN);
    const jpOrder = await prepareOrder(jpShop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    stack.sandbox.setChaos({ drop: true });
    const started = await startPayment(jpShop, {
      paymentMethodCode: 'jp-gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    // The default channel's administrator, whose permission is granted in that channel only.
    expect(await closeAttempt(stack.admin, `${jpOrder.code}-1`, 'no charge')).toEqual({
      closed: false,
      status: 'none',
      reason: `no payment attempt ${jpOrder.code}-1 in this channel`,
    });
    const untouched = await adminOrder(stack.admin.withChannel(JP_CHANNEL_TOKEN), jpOrder.id);
    expect([untouched.state, untouched.payments]).toEqual(['ArrangingPayment', []]);
  });

  it('a gateway page (3-D Secure challenge) is not closed: the shopper may still pay there', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.challenge),
    });
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentRedirect' });
    expect(await closeAttempt(stack.admin, `${order.code}-1`, 'no charge')).toEqual({
      closed: false,
      status: 'redirect',
      reason: expect.stringContaining('is a gateway page'),
    });
    const untouched = await adminOrder(stack.admin, order.id);
    expect([untouched.state, untouched.payments]).toEqual(['ArrangingPayment', []]);
  });

  it('attack: a note holding a card number is stored and answered masked', async () => {
    const { order } = await lostCharge();
    const orderNo = `${order.code}-1`;
    // Old enough to be closed: the no-record window (the reconciliation's wait is 0 here).
    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));
    const answer = await rawGraphql(stack.admin, CLOSE_ATTEMPT, {
      orderNo,
      note: 'shopper says card 4242424242424242 was not charged',
    });
    expect(answer.body.data?.gatewaykitCloseAttempt).toMatchObject({ closed: true, status: 'failed' });
    const closed = await adminOrder(stack.admin, order.id);
    const stored = JSON.stringify([answer.body, closed]);
    expect(stored).not.toContain('4242424242424242');
    expect(stored).toContain('card 424242***4242 was not charged');
    expect(JSON.stringify(closed.history.items)).toContain(`Payment attempt ${orderNo} closed by superadmin`);
  });

  it('attack: an empty, blank or 500-character note and a 51-character orderNo are refused naming the field; nothing changes', async () => {
    const { order } = await lostCharge();
    const orderNo = `${order.code}-1`;
    const refused = [
      [{ orderNo, note: '' }, 'note: '],
      [{ orderNo, note: '   ' }, 'note: '],
      [{ orderNo, note: 'x'.repeat(500) }, 'note: must be at most 200 characters'],
      [{ orderNo: 'A'.repeat(51), note: 'no charge' }, 'orderNo: must be at most 50 characters'],
    ] as const;
    for (const [variables, message] of refused) {
      const answer = await rawGraphql(stack.admin, CLOSE_ATTEMPT, variables);
      expect(answer.body.data ?? null).toBeNull();
      expect(answer.body.errors?.[0]?.message).toContain(message);
    }
    const untouched = await adminOrder(stack.admin, order.id);
    expect([untouched.state, untouched.payments]).toEqual(['ArrangingPayment', []]);
    expect(JSON.stringify(untouched.history.items)).not.toContain('closed by');
  });

  it('a refund whose notice was lost is settled from the gateway record', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 300));
    stack.sandbox.setChaos({ drop: true });
    stack.sandbox.settleRefund(refund.transactionId ?? '', { status: 'success' });
    stack.sandbox.setChaos({});
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Pending');
    const run = await reconcile(stack.admin);
    expect(run.items.find((i) => i.kind === 'refund' && i.reference === refund.transactionId)).toMatchObject({
      orderCode: order.code,
      before: 'Pending',
      after: 'Settled',
    });
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Settled');
  });

  it("the reconciliation is the scheduled task gatewaykit-reconcile; the scheduler's own trigger runs it", async () => {
    const { scheduledTasks } = await stack.admin.query<{
      scheduledTasks: { id: string; enabled: boolean }[];
    }>(`{ scheduledTasks { id enabled } }`);
    expect(scheduledTasks).toContainEqual({ id: 'gatewaykit-reconcile', enabled: true });
    const { order } = await lostCharge();
    const trigger = async () => {
      const { runScheduledTask } = await stack.admin.query<{ runScheduledTask: { success: boolean } }>(
        `mutation { runScheduledTask(id: "gatewaykit-reconcile") { success } }`,
      );
      expect(runScheduledTask.success).toBe(true);
    };
    if (stack.databaseUrl) {
      // On PostgreSQL: while a run on another instance still holds the run's database lock (a slow
      // gateway kept it past Vendure's own overlap lock), a triggered run is skipped and reads nothing.
      const otherRun = new Client({ connectionString: stack.databaseUrl });
      await otherRun.connect();
      try {
        await otherRun.query('BEGIN');
        const [held] = (
          await otherRun.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
            RECONCILE_RUN_LOCK,
          ])
        ).rows;
        expect(held.locked).toBe(true);
        expect(await runLockHolders(otherRun)).toHaveLength(1);
        await trigger();
        await eventually(
          async () => stack.server.output(),
          (output) => output.includes('the previous run is still going; this one is skipped'),
        );
        expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');
      } finally {
        await otherRun.end();
      }
    }
    await trigger();
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
    if (stack.databaseUrl) {
      // The run let go of its lock: no connection of the pool keeps it for the next run.
      const look = new Client({ connectionString: stack.databaseUrl });
      await look.connect();
      try {
        expect(
          await eventually(
            () => runLockHolders(look),
            (pids) => pids.length === 0,
          ),
        ).toEqual([]);
      } finally {
        await look.end();
      }
    }
  });

  it('attack: a shop client, or an administrator without the permission, cannot run the reconciliation', async () => {
    const { order } = await lostCharge();
    const shop = shopClient(stack);
    const fromShop = await rawGraphql(shop, RECONCILE, {});
    expect(fromShop.body.data ?? null).toBeNull();
    expect(fromShop.body.errors?.[0]?.message).toContain('Cannot query field "gatewaykitReconcile"');

    const limited = await limitedAdmin(stack);
    const forbidden = await rawGraphql(limited, RECONCILE, {});
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');

    await reconcile(stack.admin);
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');
  });
});
