/**
 * `npm run bench` (second part): the production topology (src/topology/) with one instance vs two.
 * The gateway sandbox runs in its own process (the sandbox CLI, driven over its control API), so its
 * answers and callbacks never wait on this load generator's event loop.
 * - Callbacks, sent to server-1 alone, then through the round-robin proxy to both; each side pays
 *   fresh orders on the sandbox's hosted page (the sandbox keeps their callbacks) and then sends
 *   signed `transaction.success` callbacks, shuffled, 20 in flight, in two phases:
 *   (a) first callbacks: one per paid order, all orders at once; each makes Vendure record the
 *       payment (orders/s);
 *   (b) duplicate callbacks: afterwards COPIES more copies of every order's callback, answered from
 *       the stored final outcome (callbacks/s).
 *   After each phase every order must have exactly one Settled payment (printed). Callbacks are recorded
 *   in the worker in this topology: (a) then also prints how long after the last answer the worker had
 *   recorded every order (GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER=0: recorded in the request).
 * - Checkout completion under 20 concurrent shoppers: each shopper fills a cart and pays it with a
 *   card (gatewaykitStartPayment → sandbox confirmCharge → Settled), p50/p95 of the payment call, on
 *   server-1 alone and through the proxy; every other cart is paid with the no-op handler instead
 *   (transitionOrderToState + addPaymentToOrder), the overhead baseline on that side.
 * Then, on one instance: the same two payments quiet (one shopper, in turn), and the CPU each process
 * spends per payment under load, card against no-op (process-cpu.ts).
 * Same cluster for both sides (one PostgreSQL, one Redis, the worker running). Prints figures and
 * ratios, never asserts a time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as bench from '@gatewaykit/cluster-testing';
import { signedCallback } from '@gatewaykit/core/testing';
import {
  type CallbackDelivery,
  submitSandboxPage,
  TEST_CARD_NUMBERS,
  testCardForm,
} from '@gatewaykit/sandbox';
import { Client } from 'pg';
import { DEMO_MERCHANTS } from '../src/gateways';
import { GraphqlClient, loginAdmin } from '../src/graphql-client';
import { startCluster } from '../src/topology/cluster';
import { uniqueEmail } from '../test/support/email';

const ORDERS = Number(process.env.BENCH_CALLBACK_ORDERS ?? 60);
const COPIES = Number(process.env.BENCH_CALLBACK_COPIES ?? 4);
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 20);
const CHECKOUTS_EACH = Number(process.env.BENCH_CHECKOUTS_EACH ?? 4);
const IN_FLIGHT = 20;
const CPU_PAYMENTS = Number(process.env.BENCH_CPU_PAYMENTS ?? 60);
const QUIET_PAYMENTS = Number(process.env.BENCH_QUIET_PAYMENTS ?? 30);
/**
 * The production topology records callbacks in the worker (the store's settings, src/config.ts);
 * GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER=0 measures them recorded in the request instead.
 */
const recordedInWorker = !['0', 'false'].includes(process.env.GATEWAYKIT_RECORD_CALLBACKS_IN_WORKER ?? '');

async function fillCart(shop: GraphqlClient, variantId: string): Promise<{ id: string; code: string }> {
  await shop.query(
    `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 1) { __typename } }`,
    {
      id: variantId,
    },
  );
  await shop.query(
    `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { __typename } }`,
    { input: { firstName: 'Bench', lastName: 'Mark', emailAddress: uniqueEmail('bench') } },
  );
  await shop.query(`mutation { setOrderShippingAddress(input: { fullName: "Bench", streetLine1: "1 Bench St",
    city: "London", postalCode: "N1 1AA", countryCode: "GB" }) { __typename } }`);
  const r = await shop.query<{ setOrderShippingMethod: { id: string; code: string } }>(
    `mutation { setOrderShippingMethod(shippingMethodId: ["1"]) { ... on Order { id code } } }`,
  );
  return r.setOrderShippingMethod;
}

/** Pays the cart by card (the sandbox's success card, its callback sent as it answers); true if paid. */
async function payByCard(shop: GraphqlClient): Promise<boolean> {
  const r = await shop.query<{ gatewaykitStartPayment: { __typename: string } }>(
    `mutation ($card: GatewaykitCardInput) { gatewaykitStartPayment(input: { paymentMethodCode: "gatewaykit-card", card: $card }) { __typename } }`,
    { card: testCardForm(TEST_CARD_NUMBERS.success) },
  );
  return r.gatewaykitStartPayment.__typename === 'GatewaykitPaymentCompleted';
}

/** Pays the cart with the no-op handler (the baseline: settled at once); true if paid. */
async function payNoop(shop: GraphqlClient): Promise<boolean> {
  await shop.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
  const r = await shop.query<{ addPaymentToOrder: { __typename: string } }>(
    `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) { __typename } }`,
  );
  return r.addPaymentToOrder.__typename === 'Order';
}

/** One signed callback; its latency in ms, NaN unless answered `success`. */
async function timedCallback(url: string, callbackBody: string): Promise<number> {
  const { body, headers } = signedCallback({ ...DEMO_MERCHANTS.main, body: callbackBody });
  const t0 = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers, body });
    return (await res.text()) === 'success' ? performance.now() - t0 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-bench-cluster-'));
  const step = (text: string) => console.log(`[bench] ${text}`);
  const sandbox = await bench.startSandboxProcess({ merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp] });
  const cluster = await startCluster({
    gateways: {
      main: { ...DEMO_MERCHANTS.main, baseUrl: sandbox.url },
      jp: { ...DEMO_MERCHANTS.jp, baseUrl: sandbox.url },
    },
    dataDir: path.join(dir, 'pg'),
    freshDatabase: true,
    // GATEWAYKIT_BENCH: the no-op payment method, the checkout baseline (never in a real store).
    env: { LOG_LEVEL: 'error', GATEWAYKIT_BENCH: '1' },
    log: step,
  });
  const db = new Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  try {
    const admin = await loginAdmin(`${cluster.url}/admin-api`);
    const { activeChannel } = await admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    const probe = new GraphqlClient(`${cluster.url}/shop-api`);
    const { products } = await probe.query<{ products: { items: { variants: { id: string }[] }[] } }>(
      `{ products(options: { take: 1, sort: { id: ASC } }) { items { variants { id } } } }`,
    );
    const variantId = products.items[0]?.variants[0]?.id as string;
    const one = cluster.servers[0]?.url as string;
    const sides = [
      { name: 'one instance', base: one },
      { name: 'two instances', base: cluster.url },
    ];

    // Callbacks: orders paid on the sandbox's hosted page whose callbacks the sandbox keeps (drop).
    await sandbox.control('POST', '/_sandbox/chaos', { drop: true, noReturn: 'always' });
    const callbackRates: bench.CallbackRates[] = [];
    for (const side of sides) {
      const started: { orderId: string; orderNo: string }[] = [];
      // One more than ORDERS: its first callback is sent alone, the latency without contention.
      await bench.inParallel(
        Array.from({ length: ORDERS + 1 }, (_, i) => i),
        8,
        async () => {
          const shop = new GraphqlClient(`${cluster.url}/shop-api`);
          const order = await fillCart(shop, variantId);
          const r = await shop.query<{ gatewaykitStartPayment: { url?: string; orderNo?: string } }>(
            `mutation { gatewaykitStartPayment(input: { paymentMethodCode: "gatewaykit-hosted" }) {
              ... on GatewaykitPaymentRedirect { url orderNo } } }`,
          );
          const { url, orderNo } = r.gatewaykitStartPayment;
          if (!url || !orderNo) throw new Error('no redirect');
          await submitSandboxPage(url, 'success', TEST_CARD_NUMBERS.success);
          started.push({ orderId: order.id, orderNo });
        },
      );
      // The success callbacks as the sandbox recorded (and dropped) them, sent below as the gateway would.
      const deliveries = await sandbox.control<CallbackDelivery[]>('GET', '/_sandbox/callbacks');
      const bodies = new Map(
        deliveries.filter((d) => d.type === 'transaction.success').map((d) => [d.orderNo, d.body]),
      );
      const paid = started.map(({ orderId, orderNo }) => ({ orderId, body: bodies.get(orderNo) ?? '' }));
      const url = `${side.base}/payments/gatewaykit/callback/${activeChannel.token}/gatewaykit-hosted`;
      // Every paid order with exactly one Settled payment, straight from the shared database.
      const counts = async () => {
        const { rows } = await db.query<{ settled: string; orders: string }>(
          `SELECT count(*) AS settled, count(DISTINCT "orderId") AS orders FROM payment
           WHERE state = 'Settled' AND "orderId" = ANY($1::int[])`,
          [paid.map((p) => Number(p.orderId))],
        );
        const { settled, orders } = rows[0] ?? { settled: '0', orders: '0' };
        return { settled: Number(settled), orders: Number(orders) };
      };
      const check = async () => {
        const { settled, orders } = await counts();
        const once = settled === paid.length && orders === paid.length;
        return `Settled payments ${settled} for ${paid.length} orders (exactly once: ${once})`;
      };
      callbackRates.push(
        await bench.callbackPhases({
          side: side.name,
          callbacks: paid.map((p) => p.body),
          copies: COPIES,
          width: IN_FLIGHT,
          send: (body) => timedCallback(url, body),
          check,
          ...(recordedInWorker ? { recorded: async () => (await counts()).orders >= paid.length } : {}),
        }),
      );
    }
    await sandbox.control('DELETE', '/_sandbox/chaos');

    // Checkout under concurrent shoppers; each shopper alternates a gateway card and the no-op handler.
    const summary: bench.ClusterSide[] = [];
    for (const side of sides) {
      const samples: number[] = [];
      const baseline: number[] = [];
      let errors = 0;
      await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, shopper) => {
          for (let i = 0; i < CHECKOUTS_EACH * 2; i++) {
            const shop = new GraphqlClient(`${side.base}/shop-api`);
            await fillCart(shop, variantId);
            const card = (i + shopper) % 2 === 0;
            const t0 = performance.now();
            const completed = await (card ? payByCard(shop) : payNoop(shop));
            (card ? samples : baseline).push(performance.now() - t0);
            if (!completed) errors++;
          }
        }),
      );
      console.log(
        `Checkout, ${side.name}, ${SHOPPERS} concurrent shoppers × ${CHECKOUTS_EACH} card + ${CHECKOUTS_EACH} no-op: ` +
          `card ${bench.latencyLine(samples)}; no-op ${bench.latencyLine(baseline)} (not completed: ${errors})`,
      );
      summary.push({
        name: side.name,
        callbacks: callbackRates[sides.indexOf(side)] as bench.CallbackRates,
        checkouts: samples,
        baselineCheckouts: baseline,
      });
    }
    bench.printClusterSummary('no-op', summary as [bench.ClusterSide, bench.ClusterSide]);

    // Quiet, on the production database: one shopper, card and no-op in turn, one instance.
    const quiet = { card: [] as number[], noop: [] as number[], failed: 0 };
    for (let i = 0; i < QUIET_PAYMENTS * 2; i++) {
      const shop = new GraphqlClient(`${one}/shop-api`);
      await fillCart(shop, variantId);
      const card = i % 2 === 0;
      const t0 = performance.now();
      if (await (card ? payByCard(shop) : payNoop(shop)))
        (card ? quiet.card : quiet.noop).push(performance.now() - t0);
      else quiet.failed++;
    }
    console.log(
      `Checkout, quiet, one instance on PostgreSQL, ${QUIET_PAYMENTS} card + ${QUIET_PAYMENTS} no-op one at a time: ` +
        `card ${bench.latencyLine(quiet.card)}; no-op ${bench.latencyLine(quiet.noop)}; ` +
        `gateway / no-op ${bench.ratios(quiet.card, quiet.noop)} (goal <= 1.2x) (not completed: ${quiet.failed})`,
    );

    // Where the time goes under load: the CPU each process spends per payment, one instance, carts
    // filled first and then paid all at once (SHOPPERS in flight), by card and then by the no-op.
    const [server] = cluster.servers;
    const groups = bench.clusterCpuGroups({
      stores: [
        { name: 'server-1', pid: server?.child.pid },
        { name: 'worker', pid: cluster.worker.child.pid },
      ],
      postgresDataDir: path.join(dir, 'pg'),
      sandboxPid: sandbox.pid,
    });
    // Each kind in two runs of half the payments, in turn (card, no-op, no-op, card), so that the
    // database's background work (checkpoints, autovacuum) falls on both alike.
    const kinds = { card: payByCard, 'no-op': payNoop } as const;
    const measured = new Map<
      keyof typeof kinds,
      { cpu: Map<string, number>; latencies: number[]; seconds: number; payments: number }
    >();
    for (const name of ['card', 'no-op', 'no-op', 'card'] as const) {
      const shops = Array.from(
        { length: Math.ceil(CPU_PAYMENTS / 2) },
        () => new GraphqlClient(`${one}/shop-api`),
      );
      await bench.inParallel(shops, 8, async (shop) => {
        await fillCart(shop, variantId);
      });
      const meter = bench.startCpuMeter(groups);
      const t0 = performance.now();
      const latencies: number[] = [];
      await bench.inParallel(shops, SHOPPERS, async (shop) => {
        const started = performance.now();
        if (await kinds[name](shop)) latencies.push(performance.now() - started);
      });
      const seconds = (performance.now() - t0) / 1000;
      // The callbacks' and the worker's trailing work belongs to these payments too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const cpu = meter.stop();
      const sum = measured.get(name) ?? {
        cpu: new Map<string, number>(),
        latencies: [],
        seconds: 0,
        payments: 0,
      };
      for (const [group, ms] of cpu) sum.cpu.set(group, (sum.cpu.get(group) ?? 0) + ms);
      sum.latencies.push(...latencies);
      sum.seconds += seconds;
      sum.payments += shops.length;
      measured.set(name, sum);
    }
    const cpuSides = [...measured].map(([name, { cpu, latencies, seconds, payments }]) => {
      console.log(
        `Paid alone, one instance, ${payments} payments by ${name}, ${SHOPPERS} in flight: ` +
          `${(latencies.length / seconds).toFixed(1)} completed/s, ${bench.latencyLine(latencies)} (${latencies.length} completed)`,
      );
      return { name, count: payments, cpu };
    });
    console.log(bench.cpuTable(cpuSides));
  } finally {
    await db.end();
    await cluster.stop();
    await sandbox.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
