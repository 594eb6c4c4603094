import { createElementPaymentMethod, type Sandbox } from '@gatewaykit/sandbox';
import { databaseClockMismatch, KEPT_CALLBACKS_QUEUE } from '@gatewaykit/vendure-plugin';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { GraphqlClient, loginAdmin } from '../src/graphql-client';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { type ClusterStack, startClusterStack } from './support/cluster';
import { paidByCard, settledOnce } from './support/cluster-orders';
import { applyEndingCoupon } from './support/ending-coupon';
import { whileOrderLocked } from './support/order-row-lock';
import { asRefund, paymentsWithRefunds, refundOrder } from './support/refunds';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  eventually,
  prepareOrder,
  type StartResult,
  startPayment,
} from './support/shop';

/**
 * The production topology with real processes (issue 15): two server instances and one worker on one
 * PostgreSQL and one Redis, behind the round-robin proxy that is also the gateway's callback URL.
 * Exactly once must hold across instances, with nothing in any process's memory deciding it.
 */

const RECONCILE_EVERY_S = 4;

/** The sandbox's requests of one operation about one order (its orderNos are `<code>-<n>`). */
function gatewayRequests(sandbox: Sandbox, orderCode: string, operation: string) {
  return sandbox
    .requests()
    .filter((r) => r.operation === operation && `${r.path} ${r.body ?? ''}`.includes(`${orderCode}-`));
}

/** A POSIX time zone for PostgreSQL `minutesEast` of UTC (POSIX counts west, hence the sign). */
function posixZone(minutesEast: number): string {
  const west = -minutesEast;
  const abs = Math.abs(west);
  return `GKT${west < 0 ? '-' : '+'}${Math.floor(abs / 60)}:${String(abs % 60).padStart(2, '0')}`;
}

/** What a process logged about one orderNo's callbacks: core's decisions, and a server's "kept". */
function callbackLines(process: { output(): string }, orderNo: string): string[] {
  return process
    .output()
    .split('\n')
    .filter((line) => line.includes(`callback ${orderNo}:`));
}

/** How many of an orderNo's callbacks the servers kept for the worker. */
function keptByServers(stack: ClusterStack, orderNo: string): number {
  return stack.cluster.servers
    .flatMap((server) => callbackLines(server, orderNo))
    .filter((line) => line.includes('kept for the worker')).length;
}

/**
 * Pays a started gateway page with the sandbox sending `copies` copies of each of its callbacks and no
 * return; once every copy was delivered, the answers the gateway got.
 */
async function paidWithCallbackCopies(
  stack: ClusterStack,
  started: { url: string; orderNo: string },
  copies: number,
) {
  stack.sandbox.setChaos({ copies, noReturn: 'always' });
  await completeRedirect(started.url, 'success');
  const deliveries = await stack.sandbox.waitForCallbacks(
    (d) => d.filter((c) => c.orderNo === started.orderNo && c.state === 'delivered').length >= copies,
    30_000,
  );
  return deliveries
    .filter((c) => c.orderNo === started.orderNo)
    .flatMap((c) => c.attempts.map((a) => a.response));
}

describe('production topology: two instances + worker, exactly once', () => {
  let stack: ClusterStack;
  beforeAll(async () => {
    stack = await startClusterStack({
      // The reconciliation runs in every process here (not only the worker), every few seconds, so the
      // test sees the scheduler's database lock pick one process per interval.
      GATEWAYKIT_TASKS_EVERYWHERE: '1',
      // The no-op baseline method stands for any other payment method (its hold on the order).
      GATEWAYKIT_BENCH: '1',
      GATEWAYKIT_RECONCILE_SCHEDULE: `*/${RECONCILE_EVERY_S} * * * * *`,
      GATEWAYKIT_RECONCILE_AFTER_MS: '1000',
      GATEWAYKIT_RECONCILE_NO_RECORD_MS: String(60 * 60 * 1000),
    });
  }, 300_000);
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
  });
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  /** An order with a gateway page open whose attempt reads 31 minutes old: past its block, released. */
  async function pageOpenedLongAgo() {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const page = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (page.__typename !== 'GatewaykitPaymentRedirect') throw new Error(page.__typename);
    await stack.sql(
      `UPDATE gatewaykit_payment_attempt SET "createdAt" = "createdAt" - interval '31 minutes' WHERE "orderNo" = $1`,
      [page.orderNo],
    );
    return { shop, order, page };
  }

  it("the start-up clock check: quiet when PostgreSQL's sessions and the servers share a time zone, and names the difference when they do not", async () => {
    for (const process of [...stack.cluster.servers, stack.cluster.worker]) {
      expect(process.output(), process.name).not.toContain('Payment attempt times:');
    }
    // A session in a zone 5 h 45 min from this process's (what a database left on its host's zone does).
    const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const elsewhere = here === 'Asia/Kathmandu' ? 'UTC' : 'Asia/Kathmandu';
    const query = (zone: string) => async (sql: string) => {
      const url = new URL(stack.cluster.databaseUrl);
      url.searchParams.set('options', `-c timezone=${zone}`);
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    };
    expect(await databaseClockMismatch('postgres', query(here))).toBeUndefined();
    expect(await databaseClockMismatch('postgres', query(elsewhere))).toMatch(
      /minutes (ahead of|behind) this server.*TZ=UTC/,
    );
  });

  it("attack: an instance whose PostgreSQL sessions run 45 minutes behind it still refuses another method while a gateway page is open (ages judged on the database's clock)", async () => {
    // Its attempts' createdAt then read 45 minutes old at once: judged on this process's clock, the
    // page's 30-minute block would be over and another method could pay an order the page may still
    // charge. (Less than the hour after which the other processes' reconciliation, whose sessions run
    // in their own zone, would call the page expired.)
    const url = new URL(stack.cluster.databaseUrl);
    url.searchParams.set('options', `-c timezone=${posixZone(-new Date().getTimezoneOffset() - 45)}`);
    const skewed = await stack.cluster.startServer({ DATABASE_URL: url.toString() });
    try {
      expect(skewed.output()).toMatch(
        /Payment attempt times: the database's local time reads 45 minutes behind this server/,
      );
      const shop = new GraphqlClient(`${skewed.url}/shop-api`);
      const order = await prepareOrder(shop);
      const page = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
      expect(page.__typename).toBe('GatewaykitPaymentRedirect');
      const { addPaymentToOrder } = await shop.query<{
        addPaymentToOrder: { __typename: string; eligibilityCheckerMessage?: string };
      }>(
        `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) {
           __typename ... on IneligiblePaymentMethodError { eligibilityCheckerMessage } } }`,
      );
      expect(addPaymentToOrder).toMatchObject({
        __typename: 'IneligiblePaymentMethodError',
        eligibilityCheckerMessage: expect.stringContaining('still open for this order'),
      });
      expect((await adminOrder(stack.admin, order.id)).payments).toEqual([]);
      // The page's attempt still holds the order.
      expect(
        await stack.sql('SELECT status, "openSlot" FROM gatewaykit_payment_attempt WHERE "orderCode" = $1', [
          order.code,
        ]),
      ).toEqual([{ status: 'redirect', openSlot: 'open' }]);
    } finally {
      await skewed.stop();
    }
  });

  it('attack: a page released after its window that turns pending since (a late return) holds no slot, yet refuses the next gateway charge once the new page is declined', async () => {
    // Past the page's 30-minute block: the shopper's next start releases it.
    const { shop, order } = await pageOpenedLongAgo();
    const second = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (second.__typename !== 'GatewaykitPaymentRedirect') throw new Error(second.__typename);
    // The new page is declined, which frees the order's slot, and the old page's payment is answered
    // pending late (a local method's callback; stored here as the recorder stores it: status only).
    await completeRedirect(second.url, 'fail');
    await stack.sql(`UPDATE gatewaykit_payment_attempt SET status = 'pending' WHERE "orderNo" = $1`, [
      `${order.code}-1`,
    ]);
    expect(
      await stack.sql(
        'SELECT "orderNo", status, "openSlot" FROM gatewaykit_payment_attempt WHERE "orderCode" = $1 ORDER BY "orderNo"',
        [order.code],
      ),
    ).toEqual([
      { orderNo: `${order.code}-1`, status: 'pending', openSlot: null },
      { orderNo: `${order.code}-2`, status: 'failed', openSlot: null },
    ]);
    const card = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(card).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toEqual([]);
    expect(stack.sandbox.order(`${order.code}-3`)).toBeUndefined();
  });

  it("attack: a page released after its window is paid while another method's payment is in flight: that payment alone pays the order, and the late success is flagged, never added beside it", async () => {
    // Past the page's 30-minute block: another method may pay the order now.
    const { shop, order, page } = await pageOpenedLongAgo();
    // The other method takes 3 s to answer (a real provider's call), holding the order meanwhile.
    const other = shop.query<{ addPaymentToOrder: { __typename: string; state?: string } }>(
      `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: { waitMs: 3000 } }) {
         __typename ... on Order { state } } }`,
    );
    const held = () =>
      stack.sql(
        'SELECT count(*)::int AS n FROM gatewaykit_payment_attempt WHERE "orderCode" = $1 AND status = $2',
        [order.code, 'held'],
      );
    await eventually(held, (rows) => rows[0]?.n === 1, 5_000);
    // The shopper pays on the old page meanwhile: its callback and return arrive while the hold stands.
    // The return is not recorded yet; the shopper is sent on to the store, not shown an error.
    const back = await completeRedirect(page.url, 'success');
    expect(back.returnStatus).toBe(303);
    expect((await other).addPaymentToOrder).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    // Recorded once the other payment answered (a callback retry or the reconciliation): charged, not applied.
    const [attempt] = await eventually(
      () =>
        stack.sql('SELECT status, message FROM gatewaykit_payment_attempt WHERE "orderNo" = $1', [
          page.orderNo,
        ]),
      (rows) => rows[0]?.status === 'succeeded',
      30_000,
    );
    expect(String(attempt?.message)).toContain('order is already in state PaymentSettled');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.payments.map((p) => [p.method, p.state])).toEqual([['bench-noop', 'Settled']]);
    const tradeNo = stack.sandbox.order(page.orderNo)?.tradeNo;
    expect(tradeNo).toBeTruthy();
    expect(JSON.stringify(paid.history.items)).toContain(`Gateway trade ${tradeNo}`);
    expect(JSON.stringify(paid.history.items)).toContain('was charged but could not be added to the order');
  });

  it("attack: an admin's cancelPayment of a Settled gateway payment while a notice keeps a chargeback and a portal refund on it waits for the notice's writer (the order's row lock) and keeps both: Vendure saves the payment as it read it", async () => {
    const { order, payment } = await paidByCard(stack);
    const entry = {
      batchNo: `CB-${order.code}`,
      tradeNo: payment.transactionId,
      amount: '1.00',
      currency: 'USD',
    };
    // The admin's request arrives while the chargeback's writer holds the order and reads the payment;
    // the writer then keeps the chargeback. Vendure would save the payment it read over it: the handler
    // waits for the writer and answers it.
    const cancel = await whileOrderLocked(
      stack,
      order.id,
      () =>
        stack.admin.query<{ cancelPayment: { __typename: string; paymentErrorMessage?: string } }>(
          `mutation ($id: ID!) { cancelPayment(id: $id) {
             __typename ... on CancelPaymentError { paymentErrorMessage } } }`,
          { id: payment.id },
        ),
      (writer) =>
        writer.query('UPDATE payment SET metadata = (metadata::jsonb || $2::jsonb)::text WHERE id = $1', [
          payment.id,
          JSON.stringify({ chargebacks: [entry], portalRefunds: [`B-${order.code}`] }),
        ]),
    );
    expect(cancel).toEqual({
      status: 'fulfilled',
      value: {
        cancelPayment: {
          __typename: 'CancelPaymentError',
          paymentErrorMessage: 'the gateway has no void; refund the payment instead',
        },
      },
    });
    const [after] = (await adminOrder(stack.admin, order.id)).payments;
    expect(after?.state).toBe('Settled');
    expect(after?.metadata.chargebacks).toEqual([entry]);
    // A refund made outside Vendure, kept by its notice: never listed again by any run if erased.
    expect(after?.metadata.portalRefunds).toEqual([`B-${order.code}`]);
  });

  it('attack: an item added by a request that read the order before a payment placed it and saves after is refused under the row lock: nothing lands on the placed order', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const linesOf = () =>
      stack.sql<{ quantity: number }>('SELECT quantity FROM order_line WHERE "orderId" = $1', [order.id]);
    expect(await linesOf()).toEqual([{ quantity: 1 }]);
    const [variant] = await stack.sql<{ id: number }>(
      'SELECT "productVariantId" AS id FROM order_line WHERE "orderId" = $1',
      [order.id],
    );
    // A payment being recorded places the order while the shopper's change waits to save it (its line
    // is written by then).
    const change = await whileOrderLocked(
      stack,
      order.id,
      () =>
        shop.query(
          `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 5) { __typename } }`,
          {
            id: variant?.id,
          },
        ),
      (recorder) =>
        recorder.query(`UPDATE "order" SET state = 'PaymentSettled', active = false WHERE id = $1`, [
          order.id,
        ]),
    );
    expect(change.status === 'rejected' && String(change.reason)).toContain(
      'The order changed while this request changed it',
    );
    expect(await linesOf()).toEqual([{ quantity: 1 }]);
    const [placed] = await stack.sql<{ state: string; total: number }>(
      'SELECT state, "subTotalWithTax" + "shippingWithTax" AS total FROM "order" WHERE id = $1',
      [order.id],
    );
    expect(placed).toEqual({ state: 'PaymentSettled', total: order.totalWithTax });
  });

  it("attack: an admin's settleRefund of a gateway refund that read it Pending while its notice failed it waits for the notice's writer (the order's row lock) and is refused: the refund stays Failed", async () => {
    const { order, payment } = await paidByCard(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(refund.state).toBe('Pending');
    // The admin's settleRefund reads the refund Pending while the notice's writer holds the order; the
    // writer then fails it.
    const settle = await whileOrderLocked(
      stack,
      order.id,
      () =>
        stack.admin.query(
          `mutation ($id: ID!) { settleRefund(input: { id: $id, transactionId: "by hand" }) {
             __typename ... on Refund { state } } }`,
          { id: refund.id },
        ),
      (notice) => notice.query(`UPDATE refund SET state = 'Failed' WHERE id = $1`, [refund.id]),
    );
    expect(settle.status === 'rejected' && String(settle.reason)).toMatch(/settled meanwhile/);
    expect(await stack.sql('SELECT state FROM refund WHERE id = $1', [refund.id])).toEqual([
      { state: 'Failed' },
    ]);
  });

  it('50 duplicate and out-of-order callbacks over both instances: one Settled payment, all answered success', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    stack.sandbox.setChaos({ copies: 50, outOfOrder: true, noReturn: 'always' });
    const before = [...stack.cluster.proxy.counts];
    await completeRedirect(started.url, 'success');
    const deliveries = await stack.sandbox.waitForCallbacks(
      (d) => d.filter((c) => c.orderNo === started.orderNo && c.state === 'delivered').length >= 51,
      30_000,
    );
    const mine = deliveries.filter((c) => c.orderNo === started.orderNo);
    expect(mine.length).toBeGreaterThanOrEqual(51); // 50 copies of the success + the stale fail
    // Every delivery answered `success` at its first attempt: no 500 and no retry on either instance.
    const answers = mine.flatMap((c) => c.attempts.map((a) => a.response));
    expect(answers.filter((a) => a !== 'success')).toEqual([]);
    expect(answers).toHaveLength(mine.length);
    const spread = stack.cluster.proxy.counts.map((n, i) => n - (before[i] ?? 0));
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(20);
    // The servers recorded nothing: each copy was kept on the job queue, or, once the worker had
    // recorded the success, answered from a read as a duplicate. The worker recorded every kept copy,
    // the success once.
    const answered = stack.cluster.servers.flatMap((server) => callbackLines(server, started.orderNo));
    expect(answered).toHaveLength(mine.length);
    expect(answered.filter((line) => line.includes(' -> '))).toEqual([]);
    const kept = keptByServers(stack, started.orderNo);
    expect(kept).toBeGreaterThan(0);
    const recorded = await eventually(
      async () => callbackLines(stack.cluster.worker, started.orderNo),
      (lines) => lines.length >= kept,
      20_000,
    );
    expect(recorded.filter((line) => line.includes('-> succeeded'))).toHaveLength(1);
    const paid = await settledOnce(stack, order.id);
    expect(paid.payments[0]?.transactionId).toBe(stack.sandbox.order(started.orderNo)?.tradeNo);
  });

  it('attack: callbacks signed with a wrong key or by another merchant, at both instances, are refused 401 and never reach the job queue', async () => {
    const shop = stack.shop();
    await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const { activeChannel } = await shop.query<{ activeChannel: { token: string } }>(
      '{ activeChannel { token } }',
    );
    const data = {
      orderNo: started.orderNo,
      tradeNo: 'FORGED-1',
      orderAmount: '9999.00',
      orderCurrency: 'USD',
      orderStatus: 'success',
      orderInfo: 'Approved',
    };
    const answers = [];
    for (const server of stack.cluster.servers) {
      const url = callbackUrl(server.url as string, activeChannel.token, 'gatewaykit-hosted');
      for (const signer of [
        { ...DEMO_MERCHANTS.main, signKey: 'not-the-key' },
        DEMO_MERCHANTS.jp,
        { gatewayNo: DEMO_MERCHANTS.main.gatewayNo, signKey: DEMO_MERCHANTS.jp.signKey },
      ]) {
        answers.push(await postSignedCallback({ url, ...signer, type: 'transaction.success', data }));
      }
    }
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(401));
    const everyProcess = [...stack.cluster.servers, stack.cluster.worker];
    expect(everyProcess.flatMap((p) => callbackLines(p, started.orderNo))).toEqual([]);
    const [attempt] = await stack.sql<{ status: string }>(
      'SELECT status FROM gatewaykit_payment_attempt WHERE "orderNo" = $1',
      [started.orderNo],
    );
    expect(attempt?.status).not.toBe('succeeded');
  });

  it('attack: a success Vendure refuses (coupon ended), its 50 duplicate callbacks over both instances: noted once, the order stays held on both instances, and two releases at once free it once', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const coupon = await applyEndingCoupon(stack.admin, shop, order.code);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    await coupon.end();
    const answers = await paidWithCallbackCopies(stack, started, 50);
    expect(answers.filter((a) => a !== 'success')).toEqual([]);
    // Every kept copy recorded by the worker before the order is judged.
    const kept = keptByServers(stack, started.orderNo);
    expect(kept).toBeGreaterThan(0);
    await eventually(
      async () => callbackLines(stack.cluster.worker, started.orderNo),
      (lines) => lines.length >= kept,
      20_000,
    );
    const [attempt] = await stack.sql<{ status: string; openSlot: string | null }>(
      'SELECT status, "openSlot" FROM gatewaykit_payment_attempt WHERE "orderNo" = $1',
      [started.orderNo],
    );
    expect(attempt).toEqual({ status: 'succeeded', openSlot: 'open' });
    const noted = await adminOrder(stack.admin, order.id);
    const tradeNo = stack.sandbox.order(started.orderNo)?.tradeNo ?? '?';
    expect(JSON.stringify(noted.history.items).split(`Gateway trade ${tradeNo}`)).toHaveLength(2);
    expect(noted.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);

    const pay = (client: GraphqlClient) =>
      startPayment(client, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });
    const retries = await Promise.all([pay(stack.shopOf(0, shop)), pay(stack.shopOf(1, shop))]);
    expect(
      retries.map((r) => (r.__typename === 'GatewaykitPaymentError' ? r.errorCode : r.__typename)),
    ).toEqual(['PAID_NOT_APPLIED', 'PAID_NOT_APPLIED']);
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(0);

    const close = () =>
      stack.admin.query<{ gatewaykitCloseAttempt: { closed: boolean } }>(
        `mutation ($orderNo: String!, $note: String!) { gatewaykitCloseAttempt(orderNo: $orderNo, note: $note) { closed } }`,
        { orderNo: started.orderNo, note: 'refunded in the portal' },
      );
    const releases = await Promise.all([close(), close()]);
    expect(releases.map((r) => r.gatewaykitCloseAttempt.closed).sort()).toEqual([false, true]);
    const released = await adminOrder(stack.admin, order.id);
    expect(JSON.stringify(released.history.items).split('released by')).toHaveLength(2);
  });

  it("another method's payment on one instance holds the order until it answers; declined, the card then pays on the other instance at once, and no hold is left", async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const onFirst = stack.shopOf(0, shop);
    await onFirst.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
    const { addPaymentToOrder } = await onFirst.query<{ addPaymentToOrder: { __typename: string } }>(
      `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: { decline: true } }) { __typename } }`,
    );
    expect(addPaymentToOrder.__typename).toBe('PaymentDeclinedError');
    const held = () =>
      stack.sql('SELECT id FROM gatewaykit_payment_attempt WHERE "orderCode" = $1 AND status = $2', [
        order.code,
        'held',
      ]);
    // Released before the answer left, on a connection of its own (the claim's was back in the pool).
    expect(await held()).toEqual([]);
    const card = await startPayment(stack.shopOf(1, shop), {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(card.__typename).toBe('GatewaykitPaymentCompleted');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
      20_000,
    );
    // In no particular order: the Admin API lists an order's payments as the database returns them.
    expect(paid.payments.map((p) => [p.method, p.state]).sort()).toEqual([
      ['bench-noop', 'Declined'],
      ['gatewaykit-card', 'Settled'],
    ]);
    expect(await held()).toEqual([]);
  });

  it('the same checkout submitted twice at once, one request per instance: one gateway charge', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    // The first charge is still at the gateway when the second instance gets its request.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'latency', ms: 1500, times: 1 });
    const pay = (client: GraphqlClient) =>
      startPayment(client, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });
    const results: StartResult[] = await Promise.all([
      pay(stack.shopOf(0, shop)),
      pay(stack.shopOf(1, shop)),
    ]);
    const kinds = results.map((r) => r.__typename).sort();
    expect(kinds).toContain('GatewaykitPaymentCompleted');
    expect(kinds.filter((k) => k === 'GatewaykitPaymentCompleted')).toHaveLength(1);
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(1);
    await settledOnce(stack, order.id);
    const attempts = await stack.sql(
      'SELECT "orderNo", status FROM gatewaykit_payment_attempt WHERE "orderCode" = $1',
      [order.code],
    );
    expect(attempts.filter((a) => a.status === 'succeeded')).toHaveLength(1);
  });

  it('two refunds of the whole payment at once, one admin request per instance: one gateway refund', async () => {
    const { payment } = await paidByCard(stack);
    if (!payment.transactionId) throw new Error('no settled payment');
    // The gateway holds its answers a moment, so both instances are in createRefund together; the
    // order's row lock in PostgreSQL (refund-lock.ts) makes the later one see the earlier refund.
    stack.sandbox.addFault({ route: 'createRefund', kind: 'latency', ms: 300, times: 2 });
    const admins = await Promise.all(
      stack.cluster.servers.slice(0, 2).map((server) => loginAdmin(`${server.url}/admin-api`)),
    );
    const results = await Promise.all(admins.map((admin) => refundOrder(admin, payment.id, payment.amount)));
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);
    expect(results.map((result) => asRefund(result).state).sort()).toEqual(['Failed', 'Settled']);
  });

  it('one fresh element card named by several orders at once, over both instances: one order gets it, one charge', async () => {
    const shoppers = Array.from({ length: 6 }, () => stack.shop());
    const orders = await Promise.all(shoppers.map((shop) => prepareOrder(shop)));
    const { gatewaykitCardElement } = await (shoppers[0] as GraphqlClient).query<{
      gatewaykitCardElement: { sessionToken: string };
    }>(`{ gatewaykitCardElement(paymentMethodCode: "gatewaykit-card") { sessionToken } }`);
    const { customerPaymentMethodId: pm } = await createElementPaymentMethod(
      stack.sandbox.url,
      gatewaykitCardElement.sessionToken,
      { card: cardInput(CARDS.success) as never },
    );
    // The bindings' primary key decides (docs/card-element.md#one-checkout-per-element-card), not memory.
    const results: StartResult[] = await Promise.all(
      shoppers.map((shop, i) =>
        startPayment(stack.shopOf(i % 2, shop), {
          paymentMethodCode: 'gatewaykit-card',
          elementPaymentMethodId: pm,
        }),
      ),
    );
    const winners = results.flatMap((r, i) => (r.__typename === 'GatewaykitPaymentCompleted' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const [i, result] of results.entries()) {
      if (i !== winners[0]) expect(result).toMatchObject({ errorCode: 'CARD_NOT_YOURS' });
    }
    const charges = stack.sandbox
      .requests()
      .filter((r) => r.operation === 'confirmCharge' && (r.body ?? '').includes(`"${pm}"`));
    expect(charges).toHaveLength(1);
    const winner = orders[winners[0] as number];
    await settledOnce(stack, winner?.id ?? '');
    const bindings = await stack.sql(
      'SELECT "orderId" FROM gatewaykit_element_card_binding WHERE "customerPaymentMethodId" = $1',
      [pm],
    );
    expect(bindings).toEqual([{ orderId: winner?.id }]);
  });

  it("on PostgreSQL, a chargeback whose every notice was lost is kept once by the worker's reconciliation, from the gateway's list", async () => {
    const { order, payment } = await paidByCard(stack);
    const tradeNo = payment.transactionId ?? '';
    stack.sandbox.setChaos({ drop: true });
    const chargeback = stack.sandbox.raiseChargeback({
      tradeNo,
      amount: '1.00',
      reason: 'D4837-No Cardholder Authorization',
    });
    const kept = await eventually(
      () => paymentsWithRefunds(stack.admin, order.id),
      ([payment]) => Array.isArray(payment?.metadata.chargebacks),
      10 * RECONCILE_EVERY_S * 1000,
    );
    expect(kept[0]?.metadata.chargebacks).toEqual([
      expect.objectContaining({ batchNo: chargeback.batchNo, tradeNo, amount: '1.00', currency: 'USD' }),
    ]);
    // Its notice never arrived: the run's pass kept it.
    expect(
      stack.sandbox.callbacks().filter((c) => c.batchNo === chargeback.batchNo && c.state === 'delivered'),
    ).toEqual([]);
    const notes = (await adminOrder(stack.admin, order.id)).history.items.filter((entry) =>
      String(entry.data.note ?? '').startsWith(`Chargeback ${chargeback.batchNo}`),
    );
    expect(notes).toHaveLength(1);
  });

  it('reconciliation runs once per interval across the cluster (three processes run the scheduler)', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    // The charge's answer is a 5xx: outcome unknown, nothing recorded at the gateway. The attempt stays
    // open and every reconciliation run asks the gateway about it once.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: '5xx', times: 1 });
    const started = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(started.__typename).toBe('GatewaykitPaymentPending');
    const orderNo = `${order.code}-1`;
    const reads = () =>
      stack.sandbox.requests().filter((r) => r.method === 'GET' && r.path.includes(orderNo));
    // Runs keep coming (several ticks), and never two in one tick: one per interval across the three
    // processes, not one per process.
    const asked = await eventually(
      async () => reads(),
      (seen) => seen.length >= 4,
      RECONCILE_EVERY_S * 10 * 1000,
    );
    const ticks = asked.map((r) => Math.floor(Date.parse(r.at) / (RECONCILE_EVERY_S * 1000)));
    expect(new Set(ticks).size).toBe(ticks.length);
    // And no interval goes by without one for long (a loaded machine may let one slip).
    for (const [i, tick] of ticks.slice(1).entries())
      expect(tick - (ticks[i] as number)).toBeLessThanOrEqual(3);
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(1);
  });

  it('an instance killed (SIGKILL) right after it sent a charge: the other instance and the callback finish the order once', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    // The gateway holds the charge's answer for 4 s; server-1 dies while waiting for it.
    const fault = stack.sandbox.addFault({ route: 'confirmCharge', kind: 'latency', ms: 4000, times: 1 });
    const onFirst = stack.shopOf(0, shop);
    const pending = startPayment(onFirst, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    }).catch((error: unknown) => error);
    // The charge has reached the gateway (the fault counted it), so it left server-1 before it dies.
    await eventually(
      async () => stack.sandbox.faults().find((rule) => rule.id === fault.id)?.hits ?? 0,
      (hits) => hits > 0,
      10_000,
    );
    await stack.cluster.servers[0]?.kill();
    expect(await pending).toBeInstanceOf(Error); // the shopper's request died with the instance
    // The shopper tries again (the proxy sends it to the live instance): the open attempt blocks a
    // second charge.
    const again = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(['GatewaykitPaymentPending', 'GatewaykitPaymentError']).toContain(again.__typename);
    // The gateway carries the charge out and calls back through the proxy: the live instance records it.
    const paid = await settledOnce(stack, order.id);
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(1);
    expect(paid.payments[0]?.transactionId).toBe(stack.sandbox.order(`${order.code}-1`)?.tradeNo);
    const after = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(after.__typename).not.toBe('GatewaykitPaymentCompleted');
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(1);
  });
  it('attack: a kept-callback job written into Redis by hand (a success for an unpaid order) is refused by the worker: its seal does not match, nothing recorded', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const { activeChannel } = await shop.query<{ activeChannel: { token: string } }>(
      '{ activeChannel { token } }',
    );
    const [attempt] = await stack.sql<{ orderAmount: string }>(
      'SELECT "orderAmount" FROM gatewaykit_payment_attempt WHERE "orderNo" = $1',
      [started.orderNo],
    );
    const event = JSON.stringify({
      type: 'transaction.success',
      data: {
        orderNo: started.orderNo,
        tradeNo: 'FORGED-IN-REDIS',
        orderAmount: attempt?.orderAmount,
        orderCurrency: 'USD',
        orderStatus: 'success',
      },
    });
    const redis = new URL(stack.cluster.redisUrl);
    // Vendure's BullMQ strategy keeps every job on one queue, named by its Vendure queue.
    const queue = new Queue('vendure-job-queue', {
      connection: { host: redis.hostname, port: Number(redis.port) },
    });
    try {
      await queue.add(KEPT_CALLBACKS_QUEUE, {
        channelToken: activeChannel.token,
        methodCode: 'gatewaykit-hosted',
        event,
        seal: 'f'.repeat(64),
      });
    } finally {
      await queue.close();
    }
    await eventually(
      async () => stack.cluster.worker.output(),
      (output) => output.includes("kept callback refused: a kept callback's seal does not match"),
      20_000,
    );
    const [after] = await stack.sql<{ status: string }>(
      'SELECT status FROM gatewaykit_payment_attempt WHERE "orderNo" = $1',
      [started.orderNo],
    );
    expect(after?.status).toBe('redirect');
    const unpaid = await adminOrder(stack.admin, order.id);
    expect(unpaid.payments).toEqual([]);
  });

  // Last: it leaves the first worker dead (a new one takes its place).
  it('the worker killed (SIGKILL): callbacks are still answered success, kept on the job queue, and recorded once by the next worker', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    await stack.cluster.worker.kill();
    const answers = await paidWithCallbackCopies(stack, started, 3);
    expect(answers.filter((a) => a !== 'success')).toEqual([]);
    const kept = keptByServers(stack, started.orderNo);
    expect(kept).toBeGreaterThan(0);
    const next = await stack.cluster.startWorker();
    // The new worker finds the kept callbacks on the queue. (The servers' reconciliation may settle the
    // attempt from the gateway's record first: the worker's copies are then duplicates.)
    await eventually(
      async () => callbackLines(next, started.orderNo),
      (lines) => lines.length >= kept,
      60_000,
    );
    const paid = await settledOnce(stack, order.id);
    expect(paid.payments[0]?.transactionId).toBe(stack.sandbox.order(started.orderNo)?.tradeNo);
  }, 120_000);
});
