/**
 * `npm run bench` (second part): the production topology (scripts/topology.ts: two `medusa start`
 * servers and a worker on one Postgres and one Redis, a round-robin proxy) with one instance vs two.
 * The gateway sandbox runs in its own process (the sandbox CLI, driven over its control API), so its
 * answers and callbacks never wait on this load generator's event loop.
 * - Callbacks, to server-a alone, then (fresh carts) through the proxy to both: hosted payments whose
 *   signed `transaction.success` callbacks the sandbox keeps, sent by the bench, shuffled, 20 in
 *   flight, in two phases:
 *   (a) first callbacks: one per payment, all at once; each makes Medusa capture the payment and
 *       complete the cart into an order (orders/s);
 *   (b) duplicate callbacks: afterwards COPIES more copies of every payment's callback, answered from
 *       the stored final outcome (callbacks/s).
 *   After each phase every cart must have one order and one captured payment (printed).
 * - Medusa's floor on server-a: duplicate callbacks beside a callback refused at its signature and the
 *   lightest store route, with the server's CPU per request (what Medusa's HTTP stack itself costs).
 * - Cart completion with a saved card under concurrent shoppers: p50/p95 of
 *   POST /store/carts/:id/complete on server-a alone and through the proxy, against the
 *   instant-capture baseline. From here on the sandbox delivers its callbacks (to the store's public
 *   URL, the proxy), as a real gateway does: a card completion pays for the callback that follows it.
 * - CPU per completion on server-a: carts made ready first, then completed all at once, card against
 *   instant capture, with the CPU each process spent (what one order costs Medusa, with and without
 *   the gateway).
 * Prints figures and ratios two/one, never asserts a time.
 *
 * The topology records callbacks in the worker (medusa-config.ts: `recordCallbacksInWorker`, on with
 * Redis): the servers keep each first callback on the event bus and answer at once, so the first
 * callbacks' rate counts answers and "all settled … after the last answer" how long the worker took
 * to make every order. GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER=false records them in the request, as
 * before; MEDUSA_EVENT_BUS_CONCURRENCY sets how many events the worker runs at once (10).
 * BENCH_CALLBACKS_ONLY=true stops after the callback phases (their figures only).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stripVTControlCharacters } from 'node:util';
import * as bench from '@gatewaykit/cluster-testing';
import { signedCallback } from '@gatewaykit/core/testing';
import { type CallbackDelivery, submitSandboxPage, TEST_CARD_NUMBERS } from '@gatewaykit/sandbox';
import pg from 'pg';
import { type Instance, startTopology, type Topology } from '../scripts/topology';
import { CARD, complete, HOSTED, readyCart, startSession } from '../test/support/checkout';
import { registerCustomer, saveCard } from '../test/support/customer';
import { uniqueEmail } from '../test/support/email';
import { useStore } from '../test/support/store-api';
import { waitFor } from '../test/support/wait';
import { BASELINES, enableBaselineProviders } from './baselines';

const ORDERS = Number(process.env.BENCH_CALLBACK_ORDERS || 40);
const COPIES = Number(process.env.BENCH_CALLBACK_COPIES || 4);
const SHOPPERS = Number(process.env.BENCH_SHOPPERS || 20);
const CHECKOUTS_EACH = Number(process.env.BENCH_CHECKOUTS_EACH || 3);
const CPU_COMPLETIONS = Number(process.env.BENCH_CPU_COMPLETIONS || 40);
const CALLBACKS_ONLY = process.env.BENCH_CALLBACKS_ONLY === 'true';
const IN_FLIGHT = 20;
const GATEWAY_NO = '12345678';
const SIGN_KEY = 'medusa-store-cluster-bench-sign-key';

const say = (line: string) => console.log(`[bench] ${line}`);

interface HostedPayment {
  cartId: string;
  sessionId: string;
}

interface WaitingPayment extends HostedPayment {
  /** The gateway's success callback as the sandbox recorded (and dropped) it. */
  callbackBody: string;
}

/**
 * A guest cart paid on the sandbox's hosted page; the sandbox keeps its callback (chaos `drop`) and
 * never returns the shopper, so the payment waits for the callback the bench sends.
 */
async function hostedPayment(): Promise<HostedPayment> {
  const { cartId, collectionId } = await readyCart({ email: uniqueEmail('bench-callback') });
  const session = await startSession(collectionId, HOSTED);
  const page = await submitSandboxPage(
    String(session.data.redirectUrl),
    'success',
    TEST_CARD_NUMBERS.success,
  );
  if (page.status !== 200) throw new Error(`hosted page answered ${page.status}`);
  return { cartId, sessionId: session.id };
}

/** The payments with their success callbacks, once the sandbox has recorded every one. */
function recordedCallbacks(
  sandbox: bench.RunningSandboxProcess,
  payments: HostedPayment[],
): Promise<WaitingPayment[]> {
  return waitFor(async () => {
    const deliveries = await sandbox.control<CallbackDelivery[]>('GET', '/_sandbox/callbacks');
    const bodies = new Map(
      deliveries.filter((d) => d.type === 'transaction.success').map((d) => [d.orderNo, d.body]),
    );
    const waiting = payments.map((p) => ({ ...p, callbackBody: bodies.get(p.sessionId) ?? '' }));
    return waiting.every((w) => w.callbackBody !== '') && waiting;
  }, `the recorded success callbacks of ${payments.length} payments`);
}

/** One signed callback; its latency, or NaN when the answer is not `success` (the gateway resends). */
async function sendCallback(url: string, body: string): Promise<number> {
  const signed = signedCallback({ gatewayNo: GATEWAY_NO, signKey: SIGN_KEY, body });
  const started = performance.now();
  try {
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body: signed.body });
    const answer = (await response.text()).trim();
    return response.status === 200 && answer === 'success' ? performance.now() - started : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Orders per cart and payments per session, straight from the shared database. */
async function settledOnce(
  db: pg.Client,
  payments: WaitingPayment[],
): Promise<{ captured: number; payments: number; orders: number; settled: boolean; exactlyOnce: boolean }> {
  const { rows: bySession } = await db.query<{ all: string; captured: string }>(
    `SELECT count(p.id) AS all, count(p.captured_at) AS captured FROM payment_session s
       LEFT JOIN payment p ON p.payment_session_id = s.id AND p.deleted_at IS NULL
     WHERE s.id = ANY($1) GROUP BY s.id`,
    [payments.map((p) => p.sessionId)],
  );
  const { rows: byCart } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM order_cart WHERE cart_id = ANY($1) AND deleted_at IS NULL GROUP BY cart_id',
    [payments.map((p) => p.cartId)],
  );
  const sum = (values: string[]) => values.reduce((total, value) => total + Number(value), 0);
  const captured = sum(bySession.map((row) => row.captured));
  const all = sum(bySession.map((row) => row.all));
  const orders = sum(byCart.map((row) => row.n));
  // Every cart has its order and its captured payment: nothing is still on its way.
  const settled = byCart.length === payments.length && bySession.every((row) => Number(row.captured) >= 1);
  const exactlyOnce =
    bySession.length === payments.length &&
    bySession.every((row) => row.all === '1' && row.captured === '1') &&
    byCart.length === payments.length &&
    byCart.every((row) => row.n === '1');
  return { captured, payments: all, orders, settled, exactlyOnce };
}

/** The servers' log lines (LOG_LEVEL=error, so each is an error), colours removed. */
function serverErrors(topology: Topology): string[] {
  return topology.servers.flatMap((server) =>
    stripVTControlCharacters(readFileSync(server.logFile, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
}

/** Every process of the bench, for the CPU meter. */
function cpuGroups(
  topology: Topology,
  sandbox: bench.RunningSandboxProcess,
  dataDir: string,
): bench.CpuGroup[] {
  return bench.clusterCpuGroups({
    stores: [...topology.servers, topology.worker].map((instance) => ({
      name: instance.name,
      pid: instance.medusa.pid,
    })),
    postgresDataDir: join(dataDir, 'pg'),
    sandboxPid: sandbox.pid,
  });
}

async function callbacksSide(
  name: string,
  callbackUrl: string,
  topology: Topology,
  sandbox: bench.RunningSandboxProcess,
  db: pg.Client,
  dataDir: string,
): Promise<{ rates: bench.CallbackRates; callbacks: string[] }> {
  // One more than ORDERS: its first callback is sent alone, the latency without contention.
  say(`callbacks, ${name}: preparing ${ORDERS + 1} hosted payments waiting for their callback …`);
  useStore(topology.url, topology.publishableKey);
  const paid: HostedPayment[] = [];
  await bench.inParallel(
    Array.from({ length: ORDERS + 1 }, (_, i) => i),
    8,
    async () => {
      paid.push(await hostedPayment());
    },
  );
  const waiting = await recordedCallbacks(sandbox, paid);
  // The order can follow the last `success` answer by a moment (Medusa finishes the cart completion
  // after the capture): checked once every cart is settled, or after a bounded wait.
  let allOnce = true;
  const settledLine = async () => {
    const answered = performance.now();
    await waitFor(async () => (await settledOnce(db, waiting)).settled, 'every cart settled').catch(
      () => undefined,
    );
    const settledAfter = (performance.now() - answered) / 1000;
    const result = await settledOnce(db, waiting);
    allOnce &&= result.exactlyOnce;
    return (
      `orders ${result.orders}, payments ${result.payments} (captured ${result.captured}) for ${waiting.length} carts ` +
      `(exactly once: ${result.exactlyOnce}; all settled ${settledAfter.toFixed(1)} s after the last answer${result.settled ? '' : ': NOT all settled'})`
    );
  };
  const errorsBefore = serverErrors(topology).length;
  // The CPU of every process from the first callbacks until every cart is settled: how much of a
  // core one first callback takes, in which process (a Node process uses at most one core).
  const meter = bench.startCpuMeter(cpuGroups(topology, sandbox, dataDir));
  let firstCpu: Map<string, number> | undefined;
  const check = async () => {
    const line = await settledLine();
    if (!firstCpu) {
      firstCpu = meter.stop();
      console.log(`CPU per first callback (ms), ${name}:`);
      console.log(bench.cpuTable([{ name: 'callback', count: ORDERS + 1, cpu: firstCpu }]));
    }
    return line;
  };
  const rates = await bench.callbackPhases({
    side: name,
    callbacks: waiting.map((w) => w.callbackBody),
    copies: COPIES,
    width: IN_FLIGHT,
    send: (body) => sendCallback(callbackUrl, body),
    check,
    log: say,
  });
  // What the servers logged meanwhile says why a cart was left without its order.
  const errors = serverErrors(topology).slice(errorsBefore);
  if (!allOnce)
    for (const line of errors.slice(0, 6)) console.log(`  server error: ${line.trim().slice(0, 240)}`);
  return { rates, callbacks: waiting.map((w) => w.callbackBody) };
}

const FLOOR_REQUESTS = Number(process.env.BENCH_FLOOR_REQUESTS || 1000);

/**
 * Duplicate callbacks beside what Medusa's own HTTP stack costs on this machine, on one server, the
 * same width in flight: a callback refused at its signature (no read), the store's region list (one
 * `query.graph` read, the lightest store route) and duplicates of settled payments (a session read, a
 * link read and a cart read). Rate and the server process's CPU per request (docs/performance.md).
 */
async function medusaFloor(server: Instance, publishableKey: string, settled: readonly string[]) {
  const pid = server.medusa.pid;
  const meterServer = () => bench.startCpuMeter([{ name: 'server', pids: () => (pid ? [pid] : []) }]);
  const post = (body: string, signKey: string) => {
    const signed = signedCallback({ gatewayNo: GATEWAY_NO, signKey, body });
    return fetch(`${server.url}/hooks/gatewaykit/callback`, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
    });
  };
  const routes = [
    {
      name: 'callback refused at its signature',
      status: 401,
      send: (i: number) => post(settled[i % settled.length]!, 'not-the-key'),
    },
    {
      name: 'GET /store/regions',
      status: 200,
      send: () =>
        fetch(`${server.url}/store/regions`, { headers: { 'x-publishable-api-key': publishableKey } }),
    },
    {
      name: 'duplicate callback',
      status: 200,
      send: (i: number) => post(settled[i % settled.length]!, SIGN_KEY),
    },
  ];
  say(`Medusa's floor, ${server.name}: ${FLOOR_REQUESTS} requests of each kind, ${IN_FLIGHT} in flight …`);
  const rates = new Map<string, number>();
  for (const route of routes) {
    const meter = meterServer();
    const burst = await bench.timedBurst(
      Array.from({ length: FLOOR_REQUESTS }, (_, i) => i),
      IN_FLIGHT,
      async (i) => {
        const started = performance.now();
        const response = await route.send(i);
        await response.text();
        return response.status === route.status ? performance.now() - started : Number.NaN;
      },
    );
    const cpu = meter.stop().get('server') ?? 0;
    rates.set(route.name, burst.rate);
    console.log(
      `Floor, ${server.name}: ${route.name}: ${burst.rate.toFixed(0)}/s, server CPU ` +
        `${(cpu / FLOOR_REQUESTS).toFixed(2)} ms per request (other than ${route.status}: ${burst.refused})`,
    );
  }
  const ratio = (rates.get('duplicate callback') ?? 0) / (rates.get('GET /store/regions') ?? 1);
  console.log(`Floor, ${server.name}: duplicate callbacks / GET /store/regions = ${ratio.toFixed(2)}x`);
}

interface Shopper {
  token: string;
  email: string;
  cardId: string;
}

/** A cart of the shopper's, filled and ready to complete with their saved card (or instant capture). */
async function readyPaidCart(shopper: Shopper, baseline: boolean): Promise<string> {
  const { cartId, collectionId } = await readyCart({ token: shopper.token, email: shopper.email });
  if (baseline) await startSession(collectionId, BASELINES.instant, {}, shopper.token);
  else await startSession(collectionId, CARD, { customerPaymentMethodId: shopper.cardId }, shopper.token);
  return cartId;
}

/**
 * One cart filled and paid with the shopper's saved card (or with the instant-capture baseline); the
 * completion's latency, or an error.
 */
async function timedCheckout(shopper: Shopper, baseline = false): Promise<number> {
  const cartId = await readyPaidCart(shopper, baseline);
  const started = performance.now();
  const response = await complete(cartId, shopper.token);
  const elapsed = performance.now() - started;
  if (response.status !== 200 || response.body.type !== 'order')
    throw new Error(`complete answered ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
  return elapsed;
}

async function checkoutSide(name: string, url: string, topology: Topology, shoppers: Shopper[]) {
  useStore(url, topology.publishableKey);
  say(`checkout, ${name}: ${shoppers.length} shoppers × ${CHECKOUTS_EACH} …`);
  const samples: number[] = [];
  const baseline: number[] = [];
  const errors: string[] = [];
  // Each shopper alternates the saved card and the instant-capture baseline, under the same load.
  await Promise.all(
    shoppers.map(async (shopper, index) => {
      for (let i = 0; i < CHECKOUTS_EACH * 2; i++) {
        const isBaseline = (i + index) % 2 === 1;
        try {
          (isBaseline ? baseline : samples).push(await timedCheckout(shopper, isBaseline));
        } catch (error) {
          errors.push(String(error));
        }
      }
    }),
  );
  console.log(
    `Checkout, ${name}, ${shoppers.length} concurrent shoppers × ${CHECKOUTS_EACH} card + ${CHECKOUTS_EACH} instant-capture: ` +
      `card ${bench.latencyLine(samples)}; instant-capture ${bench.latencyLine(baseline)} ` +
      `(not completed: ${errors.length}${errors[0] ? `; first: ${errors[0]}` : ''})`,
  );
  return { samples, baseline };
}

/**
 * CPU per completion on one server: for each kind, carts made ready first (a cart, a session), then
 * completed all at once, IN_FLIGHT at a time; in two halves, in the order card, instant, instant, card,
 * so that the database's background work falls on both alike. Prints the latency of each burst and the
 * CPU each process spent per completion (docs/performance.md).
 */
async function completionCpu(
  server: Instance,
  topology: Topology,
  shoppers: Shopper[],
  sandbox: bench.RunningSandboxProcess,
  dataDir: string,
) {
  useStore(server.url, topology.publishableKey);
  const half = Math.ceil(CPU_COMPLETIONS / 2);
  say(`CPU per completion, ${server.name}: ${half * 2} card and ${half * 2} instant-capture carts …`);
  const kinds = ['card', 'instant capture'] as const;
  const measured = new Map(
    kinds.map((kind) => [kind, { cpu: new Map<string, number>(), latencies: [] as number[], failed: 0 }]),
  );
  for (const kind of ['card', 'instant capture', 'instant capture', 'card'] as const) {
    const carts: { cartId: string; token: string }[] = [];
    await bench.inParallel(
      Array.from({ length: half }, (_, i) => shoppers[i % shoppers.length]!),
      8,
      async (shopper) => {
        carts.push({ cartId: await readyPaidCart(shopper, kind !== 'card'), token: shopper.token });
      },
    );
    const sum = measured.get(kind)!;
    const meter = bench.startCpuMeter(cpuGroups(topology, sandbox, dataDir));
    const burst = await bench.timedBurst(carts, IN_FLIGHT, async (cart) => {
      const started = performance.now();
      const response = await complete(cart.cartId, cart.token);
      const ok = response.status === 200 && response.body.type === 'order';
      return ok ? performance.now() - started : Number.NaN;
    });
    // The callbacks that follow the card charges, and the worker's events, belong to these orders too.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const [group, ms] of meter.stop()) sum.cpu.set(group, (sum.cpu.get(group) ?? 0) + ms);
    sum.latencies.push(...burst.latencies);
    sum.failed += burst.refused;
  }
  const card = measured.get('card')!;
  const instant = measured.get('instant capture')!;
  console.log(
    `Completed at once, ${server.name}, ${half * 2} each, ${IN_FLIGHT} in flight: card ${bench.latencyLine(card.latencies)}; ` +
      `instant capture ${bench.latencyLine(instant.latencies)}; card / instant ${bench.ratios(card.latencies, instant.latencies)} ` +
      `(not completed: card ${card.failed}, instant ${instant.failed})`,
  );
  console.log(`CPU per completion (ms), ${server.name}, card against instant capture:`);
  console.log(
    bench.cpuTable([
      { name: 'card', count: half * 2, cpu: card.cpu },
      { name: 'instant', count: half * 2, cpu: instant.cpu },
    ]),
  );
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatewaykit-medusa-bench-cluster-'));
  const cleanups: (() => Promise<unknown>)[] = [
    async () => rmSync(dataDir, { recursive: true, force: true }),
  ];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  // A topology still starting has no stop yet: a signal waits for it, then stops everything.
  let starting: Promise<unknown> = Promise.resolve();
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      say(`${signal}: stopping everything …`);
      void starting
        .catch(() => undefined)
        .then(cleanUp)
        .then(() => process.exit(130));
    });
  const recordedIn = process.env.GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER === 'false' ? 'request' : 'worker';
  say(
    `callbacks recorded in the ${recordedIn} (GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER), event bus concurrency ${process.env.MEDUSA_EVENT_BUS_CONCURRENCY || '10'}`,
  );
  try {
    say('gateway sandbox (its own process) …');
    const sandbox = await bench.startSandboxProcess({
      merchants: [{ gatewayNo: GATEWAY_NO, signKey: SIGN_KEY }],
    });
    cleanups.push(() => sandbox.stop());
    const startingTopology = startTopology({
      dataDir,
      gatewayBaseUrl: sandbox.url,
      gatewayNo: GATEWAY_NO,
      signKey: SIGN_KEY,
      env: { GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true', GATEWAYKIT_BENCH_BASELINES: 'true', LOG_LEVEL: 'error' },
      log: (line) => say(line.replace(/^\[topology\] /, '')),
    });
    starting = startingTopology;
    const topology = await startingTopology;
    cleanups.push(async () => {
      say('stopping the topology …');
      await topology.stop();
    });
    const db = new pg.Client({ connectionString: topology.databaseUrl });
    await db.connect();
    cleanups.push(() => db.end());
    const serverA = topology.servers[0].url;
    const sides = [
      { name: 'one instance (server-a)', url: serverA },
      { name: 'two instances (proxy)', url: topology.url },
    ];

    // In the callback phases every callback stays with the sandbox: the bench sends them, to the
    // instance(s) measured (through the proxy they would make server-b work in the one-instance runs).
    // The checkout phases below have the sandbox deliver them again.
    await sandbox.control('POST', '/_sandbox/chaos', { drop: true, noReturn: 'always' });
    const rates: bench.CallbackRates[] = [];
    const settled: string[] = [];
    for (const side of sides) {
      const done = await callbacksSide(
        side.name,
        `${side.url}/hooks/gatewaykit/callback`,
        topology,
        sandbox,
        db,
        dataDir,
      );
      rates.push(done.rates);
      settled.push(...done.callbacks);
    }
    if (CALLBACKS_ONLY) {
      const [one, two] = rates as [bench.CallbackRates, bench.CallbackRates];
      console.log(
        `Callbacks (recorded in the ${recordedIn}), first: one ${one.first.toFixed(1)}/s, two ${two.first.toFixed(1)}/s ` +
          `(${(two.first / one.first).toFixed(2)}x); duplicates: one ${one.duplicate.toFixed(0)}/s, two ${two.duplicate.toFixed(0)}/s`,
      );
      return;
    }
    await medusaFloor(topology.servers[0], topology.publishableKey, settled);

    // From here the gateway's callbacks are delivered (to the proxy), as in production.
    await sandbox.control('POST', '/_sandbox/chaos', { noReturn: 'always' });
    say(`checkout: registering ${SHOPPERS} customers with a saved card …`);
    useStore(topology.url, topology.publishableKey);
    await enableBaselineProviders();
    const shoppers: Shopper[] = [];
    await bench.inParallel(
      Array.from({ length: SHOPPERS }, (_, i) => i),
      8,
      async () => {
        const customer = await registerCustomer();
        const card = await saveCard(customer.token, TEST_CARD_NUMBERS.success);
        shoppers.push({ token: customer.token, email: customer.email, cardId: card.id });
      },
    );
    // One completion on each server first: neither side measures a cold server's first requests.
    for (const server of topology.servers) {
      useStore(server.url, topology.publishableKey);
      await timedCheckout(shoppers[0]!);
    }
    const summary: bench.ClusterSide[] = [];
    for (const [index, side] of sides.entries()) {
      const { samples, baseline } = await checkoutSide(side.name, side.url, topology, shoppers);
      summary.push({
        name: side.name,
        callbacks: rates[index] as bench.CallbackRates,
        checkouts: samples,
        baselineCheckouts: baseline,
      });
    }

    await completionCpu(topology.servers[0], topology, shoppers, sandbox, dataDir);

    bench.printClusterSummary('instant-capture', summary as [bench.ClusterSide, bench.ClusterSide]);
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
