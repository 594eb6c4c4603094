/**
 * Exactly once across instances (docs/safety-rules.md#exactly-once): two `medusa start` servers and a
 * worker on one Postgres and one Redis (scripts/topology.ts), real processes over real HTTP. Requests go
 * to a chosen server directly or through the round-robin proxy (the store's URL); the gateway's
 * callbacks come back through the proxy. The instance-killing test runs last: afterwards one server is
 * gone and only the other one answers.
 */
import { readFileSync } from 'node:fs';
import { createElementPaymentMethod } from '@gatewaykit/sandbox';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { CARD, HOSTED, readyCart, startSession } from '../support/checkout';
import { sql } from '../support/database';
import { uniqueEmail } from '../support/email';
import { ordersOf } from '../support/orders';
import { CARDS, finishWithoutReturn, sandboxControl } from '../support/sandbox-pages';
import { signedHeaders } from '../support/signed-callback';
import { api, expectOk, type Json, useStore } from '../support/store-api';
import { waitFor } from '../support/wait';
import { RECONCILE_INTERVAL_SECONDS } from './global-setup';

const [SERVER_A, SERVER_B] = inject('serverUrls') as [string, string];

/** One request to one chosen instance (not through the proxy). */
async function at(
  server: string,
  method: string,
  path: string,
  options: { rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server}${path}`, {
    method,
    headers: { 'x-publishable-api-key': inject('publishableKey'), ...options.headers },
    ...(options.rawBody === undefined ? {} : { body: options.rawBody }),
  });
  return { status: response.status, text: await response.text() };
}

async function elementCard(cartId: string): Promise<string> {
  const { session_token } = await expectOk(
    api('POST', '/store/gatewaykit/card-element', { body: { cart_id: cartId, provider_id: CARD } }),
  );
  const { customerPaymentMethodId } = await createElementPaymentMethod(inject('sandboxUrl'), session_token, {
    card: {
      cardNo: CARDS.success,
      cardExpireMonth: '12',
      cardExpireYear: String(new Date().getFullYear() + 2),
      cardSecurityCode: '123',
    },
  });
  return customerPaymentMethodId;
}

/** confirmCharge requests the sandbox received for this orderNo (every one that reached it). */
async function chargesOf(orderNo: string): Promise<Json[]> {
  const requests = (await sandboxControl('requests')) as Json[];
  return requests.filter(
    (request) => request.operation === 'confirmCharge' && JSON.stringify(request).includes(orderNo),
  );
}

/** Payments Medusa stored for the session (captured or not), straight from the database. */
async function paymentsOf(sessionId: string): Promise<{ id: string; captured_at: string | null }[]> {
  return sql('SELECT id, captured_at FROM payment WHERE payment_session_id = $1 AND deleted_at IS NULL', [
    sessionId,
  ]);
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Lines of an instance's log file that hold `text`. */
function linesWith(file: string, text: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(text));
}

/** Lines of an instance's log saying that it recorded the success of `orderNo` (`<before> -> succeeded`). */
const recordedSuccess = (file: string, orderNo: string) =>
  linesWith(file, `callback ${orderNo}: `).filter((line) => line.includes(' -> succeeded'));

/** Every line the servers logged holding `text`. */
const serverLines = (text: string) => inject('serverLogs').flatMap((log) => linesWith(log, text));

/**
 * A cart paid on the sandbox's hosted page whose success callback the sandbox recorded and dropped
 * (chaos `drop`, no return): nothing is recorded until a test sends that callback itself.
 */
async function paidAwaitingCallback(name: string) {
  await sandboxControl('chaos', { drop: true, noReturn: 'always' });
  const email = uniqueEmail(name);
  const { cartId, collectionId } = await readyCart({ email });
  const session = await startSession(collectionId, HOSTED);
  await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
  const [delivery] = await waitFor(async () => {
    const list = ((await sandboxControl('callbacks')) as Json[]).filter((d) => d.orderNo === session.id);
    return list.length > 0 && list;
  }, 'the recorded (dropped) success callback');
  return { email, cartId, session, body: delivery.body as string };
}

/** The order of `email` once it exists with its payment captured (the worker may still be on it). */
function capturedOrders(email: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const found = await ordersOf(email);
      return found.some((order) => order.payment_status === 'captured') && found;
    },
    'the order with its captured payment',
    timeoutMs,
  );
}

/** A signed callback posted to one instance. */
const postCallback = (server: string, body: string, headers = signedHeaders(body)) =>
  at(server, 'POST', '/hooks/gatewaykit/callback', {
    rawBody: body,
    headers: { 'content-type': 'application/json', ...headers },
  });

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
  await sandboxControl('faults', undefined, 'DELETE');
});

describe('two servers and a worker on one Postgres and one Redis', () => {
  it('50 duplicate and out-of-order callbacks over both instances: one captured payment, one order, all answered success', async () => {
    const { email, cartId, session, body } = await paidAwaitingCallback('cluster-callbacks');
    const delivery = { body };
    const success = JSON.parse(body) as { type: string; data: Record<string, string> };
    const variant = (type: string, orderStatus: string) =>
      JSON.stringify({ ...success, type, data: { ...success.data, orderStatus } });
    // Duplicates of the success, and stale pending and fail events of the same trade, in random order.
    const bodies = shuffled([
      ...Array.from({ length: 30 }, () => delivery.body as string),
      ...Array.from({ length: 10 }, () => variant('transaction.pending', 'pending')),
      ...Array.from({ length: 10 }, () => variant('transaction.fail', 'fail')),
    ]);
    const answers = await Promise.all(
      bodies.map((body, index) =>
        at(index % 2 === 0 ? SERVER_A : SERVER_B, 'POST', '/hooks/gatewaykit/callback', {
          rawBody: body,
          headers: { 'content-type': 'application/json', ...signedHeaders(body) },
        }),
      ),
    );
    expect(answers.map((answer) => `${answer.status} ${answer.text.trim()}`)).toEqual(
      bodies.map(() => '200 success'),
    );
    // The servers kept them on the event bus; the worker records them, one after the other under the
    // cart's lock: the order comes after the answers.
    expect(
      serverLines(`callback ${session.id}: `).filter((line) => line.includes('kept for the worker')),
    ).not.toEqual([]);
    const orders = await capturedOrders(email);
    // Every event recorded (the duplicates and stale ones too) before counting: nothing comes later.
    await waitFor(async () => {
      const recorded = linesWith(inject('workerLog'), `callback ${session.id}: `);
      return recorded.length >= bodies.length && recorded;
    }, 'the worker to record all 50 callbacks');
    expect(await ordersOf(email)).toHaveLength(1);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_status).toBe('captured');
    const payments = await paymentsOf(session.id);
    expect(payments).toHaveLength(1);
    expect(payments[0]!.captured_at).not.toBeNull();
    const [stored] = await sql<{ data: Json }>('SELECT data FROM payment_session WHERE id = $1', [
      session.id,
    ]);
    expect(stored!.data.outcome.status).toBe('succeeded');
    const carts = await sql('SELECT order_id FROM order_cart WHERE cart_id = $1 AND deleted_at IS NULL', [
      cartId,
    ]);
    expect(carts).toHaveLength(1);
  });

  it('a success callback is answered at once by a server and recorded by the worker: the order, one capture', async () => {
    const { email, session, body } = await paidAwaitingCallback('cluster-kept');
    const answer = await postCallback(SERVER_A, body);
    expect(`${answer.status} ${answer.text.trim()}`).toBe('200 success');
    const orders = await capturedOrders(email);
    expect(orders).toHaveLength(1);
    expect(await paymentsOf(session.id)).toHaveLength(1);
    // The worker recorded it (Medusa's payment workflow ran there); the server only kept it.
    await waitFor(
      async () => recordedSuccess(inject('workerLog'), session.id).length === 1,
      'the worker log',
    );
    await waitFor(
      async () =>
        linesWith(inject('serverLogs')[0]!, `callback ${session.id}: succeeded kept for the worker`)
          .length === 1,
      "server-a's log",
    );
    for (const log of inject('serverLogs')) expect(recordedSuccess(log, session.id)).toEqual([]);
  });

  it('attack: a forged callback on both servers is answered 401 and never reaches the worker; no order', async () => {
    const { email, session, body } = await paidAwaitingCallback('cluster-forged');
    const keptEvents = () => linesWith(inject('workerLog'), 'Processing gatewaykit.callback.kept').length;
    const keptBefore = keptEvents();
    const cheaper = body.replace(/"orderAmount":"[^"]+"/, '"orderAmount":"0.01"');
    expect(cheaper).not.toBe(body);
    const forged = [
      { body, headers: signedHeaders(body, { signKey: 'not-the-merchant-sign-key' }) },
      // The gateway's own signature, the amount changed after signing.
      { body: cheaper, headers: signedHeaders(body) },
    ];
    for (const server of [SERVER_A, SERVER_B]) {
      for (const callback of forged) {
        const answer = await postCallback(server, callback.body, callback.headers);
        expect(`${answer.status} ${answer.text.trim()}`).toBe('401 invalid signature');
      }
    }
    expect(await ordersOf(email)).toEqual([]);
    const [stored] = await sql<{ data: Json }>('SELECT data FROM payment_session WHERE id = $1', [
      session.id,
    ]);
    // As the hosted page left it: the shopper is on the gateway's page, nothing heard since.
    expect(stored!.data.outcome.status).toBe('redirect');
    // The genuine callback after them: the one kept event the worker sees, the one order. Jobs run in
    // the order they were added, so a forged callback kept before it would have been processed first.
    const answer = await postCallback(SERVER_B, body);
    expect(`${answer.status} ${answer.text.trim()}`).toBe('200 success');
    expect(await capturedOrders(email)).toHaveLength(1);
    await waitFor(
      async () => recordedSuccess(inject('workerLog'), session.id).length === 1,
      'the worker log',
    );
    expect(keptEvents() - keptBefore).toBe(1);
    expect(serverLines(`callback ${session.id}: succeeded kept for the worker`)).toHaveLength(1);
    expect(await paymentsOf(session.id)).toHaveLength(1);
  });

  it('the same cart completed at once on both instances: one gateway charge, one order', async () => {
    const email = uniqueEmail('cluster-complete');
    const { cartId, collectionId } = await readyCart({ email });
    const method = await elementCard(cartId);
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: method });
    // The charge takes a moment at the gateway, so both completions are surely in flight together.
    await sandboxControl('faults', { route: 'confirmCharge', kind: 'latency', ms: 1500 });
    const [a, b] = await Promise.all([
      at(SERVER_A, 'POST', `/store/carts/${cartId}/complete`),
      at(SERVER_B, 'POST', `/store/carts/${cartId}/complete`),
    ]);
    // One completion places the order; the other waits for the cart lock and answers the same order, or
    // is refused while the first runs (Medusa's workflow engine knows the cart's completion is running).
    const placed = [a, b].filter((answer) => answer.status === 200);
    expect(placed.length).toBeGreaterThanOrEqual(1);
    for (const answer of [a, b].filter((one) => one.status !== 200)) {
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text).toBeLessThan(500);
    }
    const orderIds = placed.map((answer) => (JSON.parse(answer.text) as Json).order?.id);
    expect(orderIds[0]).toBeTruthy();
    expect(new Set(orderIds).size).toBe(1);
    // Asked again afterwards, each instance answers the same order.
    for (const server of [SERVER_A, SERVER_B]) {
      const again = await at(server, 'POST', `/store/carts/${cartId}/complete`);
      expect((JSON.parse(again.text) as Json).order?.id).toBe(orderIds[0]);
    }
    expect(await chargesOf(session.id)).toHaveLength(1);
    expect(await ordersOf(email)).toHaveLength(1);
    expect(await paymentsOf(session.id)).toHaveLength(1);
  });

  it(`the reconciliation job runs once per interval (${RECONCILE_INTERVAL_SECONDS} s here), on the worker only`, async () => {
    const runs = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.includes('gatewaykit: reconciliation ran'));
    const before = runs(inject('workerLog')).length;
    // Runs keep coming: four more, then their times (whole seconds, as the log writes them).
    const seen = await waitFor(
      async () => {
        const all = runs(inject('workerLog'));
        return all.length >= before + 4 && all.slice(before);
      },
      'four more runs',
      10 * RECONCILE_INTERVAL_SECONDS * 1000,
    );
    const times = seen.map((line) => Date.parse((JSON.parse(line) as { timestamp: string }).timestamp));
    // Never two in one interval: two instances each running it would log within a second or so of each
    // other; one run per interval logs about an interval apart (half of one allows for a slow run and
    // the log's one-second resolution).
    const gaps = times.slice(1).map((time, i) => (time - (times[i] as number)) / 1000);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(RECONCILE_INTERVAL_SECONDS / 2);
    // And no interval goes by without one for long (a loaded machine may let one slip).
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(3 * RECONCILE_INTERVAL_SECONDS);
    for (const log of inject('serverLogs')) expect(runs(log)).toEqual([]);
  });

  it('an instance killed (SIGKILL) right after it sent the charge: the other instance and the callback finish the order once, no second charge', async () => {
    const email = uniqueEmail('cluster-kill');
    const { cartId, collectionId } = await readyCart({ email });
    const method = await elementCard(cartId);
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: method });
    // The gateway holds its answer: the charge has left server A when A dies.
    const fault = (await sandboxControl('faults', {
      route: 'confirmCharge',
      kind: 'latency',
      ms: 6000,
    })) as Json;
    const completion = at(SERVER_A, 'POST', `/store/carts/${cartId}/complete`).catch((error: unknown) => ({
      status: 0,
      text: String(error),
    }));
    await waitFor(async () => {
      const rules = (await sandboxControl('faults')) as Json[];
      return rules.some((rule) => rule.id === fault.id && rule.hits > 0);
    }, 'the charge to reach the gateway');
    const [pidA] = inject('serverPids');
    process.kill(pidA!, 'SIGKILL');
    expect((await completion).status).toBe(0); // A never answered: the shopper saw a dropped connection.
    // From here on the helpers (admin reads, store reads) ask B, as a balancer would after its health check.
    useStore(SERVER_B, inject('publishableKey'));

    // Medusa 2.21 creates the order before it authorizes the payment (the last step of its cart
    // completion), so A left an order awaiting payment and its cart lock in Redis. The gateway answers
    // the charge (to nobody) and sends its callback to the store's URL; the proxy passes it to B (it
    // skips an instance that refuses connections). B keeps it on the event bus (recordCallbacksInWorker)
    // and the worker records it once the dead instance's cart lock expires (Medusa's 120 s TTL; the
    // event is tried again meanwhile) and authorizes the session: the order is paid. The gateway retries a callback for hours; here its
    // retries are the sandbox's redeliveries, every 10 s, so the test does not wait for its schedule.
    const [delivery] = await waitFor(async () => {
      const list = ((await sandboxControl('callbacks')) as Json[]).filter((d) => d.orderNo === session.id);
      return list.length > 0 && list;
    }, 'the gateway to answer the held charge and send its callback');
    let nextRetry = 0;
    const orders = await waitFor(
      async () => {
        if (Date.now() > nextRetry) {
          nextRetry = Date.now() + 10_000;
          await sandboxControl(`callbacks/${delivery.id}/redeliver`, {});
        }
        const found = await ordersOf(email);
        return found.some((order) => order.payment_status === 'captured') && found;
      },
      'the order paid by the callback on the surviving instance',
      220_000,
    );
    expect(orders).toHaveLength(1);
    // The shopper completes again (on B): the same order, nothing charged again.
    const again = await at(SERVER_B, 'POST', `/store/carts/${cartId}/complete`);
    expect(again.status).toBe(200);
    expect((JSON.parse(again.text) as Json).order.id).toBe(orders[0]!.id);
    expect(await chargesOf(session.id)).toHaveLength(1);
    expect(await paymentsOf(session.id)).toHaveLength(1);
  });
});
