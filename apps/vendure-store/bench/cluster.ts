/**
 * `npm run bench` (second part): the production topology (src/topology/) with one instance vs two.
 * - Callbacks handled exactly once per second: signed `transaction.success` callbacks (each paid
 *   order's callback several times, all at once, 20 in flight) sent to server-1 alone, then through
 *   the round-robin proxy to both; afterwards every order must have exactly one Settled payment.
 * - Checkout completion under 20 concurrent shoppers: each shopper fills a cart and pays it with a
 *   card (gatewaykitStartPayment → sandbox confirmCharge → Settled), p50/p95 of the payment call, on
 *   server-1 alone and through the proxy; every other cart is paid with the no-op handler instead
 *   (transitionOrderToState + addPaymentToOrder), the overhead baseline on that side.
 * Same cluster for both sides (one PostgreSQL, one Redis, the worker running). Prints figures and
 * ratios, never asserts a time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type ClusterSide, inParallel, percentile, printClusterSummary } from '@gatewaykit/cluster-testing';
import { signedCallback } from '@gatewaykit/core/testing';
import { startSandbox, submitSandboxPage, TEST_CARD_NUMBERS, testCardForm } from '@gatewaykit/sandbox';
import { Client } from 'pg';
import { DEMO_MERCHANTS } from '../src/gateways';
import { GraphqlClient, loginAdmin } from '../src/graphql-client';
import { startCluster } from '../src/topology/cluster';

const ORDERS = Number(process.env.BENCH_CALLBACK_ORDERS ?? 60);
const COPIES = Number(process.env.BENCH_CALLBACK_COPIES ?? 4);
const SHOPPERS = Number(process.env.BENCH_SHOPPERS ?? 20);
const CHECKOUTS_EACH = Number(process.env.BENCH_CHECKOUTS_EACH ?? 4);
const IN_FLIGHT = 20;

async function fillCart(shop: GraphqlClient, variantId: string): Promise<{ id: string; code: string }> {
  await shop.query(
    `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 1) { __typename } }`,
    {
      id: variantId,
    },
  );
  await shop.query(
    `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { __typename } }`,
    { input: { firstName: 'Bench', lastName: 'Mark', emailAddress: `bench-${Math.random()}@example.com` } },
  );
  await shop.query(`mutation { setOrderShippingAddress(input: { fullName: "Bench", streetLine1: "1 Bench St",
    city: "London", postalCode: "N1 1AA", countryCode: "GB" }) { __typename } }`);
  const r = await shop.query<{ setOrderShippingMethod: { id: string; code: string } }>(
    `mutation { setOrderShippingMethod(shippingMethodId: ["1"]) { ... on Order { id code } } }`,
  );
  return r.setOrderShippingMethod;
}

/** One signed success callback; its latency in ms, NaN unless answered `success`. */
async function timedCallback(url: string, data: Record<string, string>): Promise<number> {
  const { body, headers } = signedCallback({
    ...DEMO_MERCHANTS.main,
    body: { type: 'transaction.success', data },
  });
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
  const sandbox = await startSandbox({ port: 0, merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp] });
  const step = (text: string) => console.log(`[bench] ${text}`);
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
    sandbox.setChaos({ drop: true, noReturn: 'always' });
    const rates: number[] = [];
    for (const side of sides) {
      const paid: { orderId: string; data: Record<string, string> }[] = [];
      await inParallel(
        Array.from({ length: ORDERS }, (_, i) => i),
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
          const g = sandbox.order(orderNo);
          paid.push({
            orderId: order.id,
            data: {
              transactionType: 'Sale',
              orderNo,
              tradeNo: g?.tradeNo ?? '',
              orderAmount: g?.orderAmount ?? '',
              orderCurrency: g?.orderCurrency ?? '',
              orderStatus: 'success',
              orderInfo: 'Transaction Approved',
              remark: '',
            },
          });
        },
      );
      const url = `${side.base}/payments/gatewaykit/callback/${activeChannel.token}/gatewaykit-hosted`;
      // One callback alone first: its latency without contention (a first success adds the payment).
      const lone = paid[0];
      const single = lone ? await timedCallback(url, lone.data) : Number.NaN;
      // Then all: duplicates of one order arrive together, as the gateway's copies and retries would.
      const callbacks = paid.flatMap((p) => Array.from({ length: COPIES }, () => p.data));
      let failures = 0;
      const calls: number[] = [];
      const t0 = performance.now();
      await inParallel(callbacks, IN_FLIGHT, async (data) => {
        const ms = await timedCallback(url, data);
        if (Number.isNaN(ms))
          failures++; // the gateway would deliver it again
        else calls.push(ms);
      });
      const seconds = (performance.now() - t0) / 1000;
      const settled = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM payment WHERE state = 'Settled' AND "orderId" = ANY($1::int[])`,
        [paid.map((p) => Number(p.orderId))],
      );
      const rate = callbacks.length / seconds;
      rates.push(rate);
      console.log(
        `Callbacks, ${side.name}: ${callbacks.length} (${paid.length} orders × ${COPIES}, ${IN_FLIGHT} in flight) in ` +
          `${seconds.toFixed(2)} s = ${rate.toFixed(0)}/s; answered other than success: ${failures}; ` +
          `Settled payments ${settled.rows[0]?.n} for ${paid.length} orders (exactly once: ${Number(settled.rows[0]?.n) === paid.length}); ` +
          `latency p50 ${percentile(calls, 50).toFixed(0)} ms, p95 ${percentile(calls, 95).toFixed(0)} ms; one callback alone ${single.toFixed(0)} ms`,
      );
    }
    sandbox.setChaos({});

    // Checkout under concurrent shoppers; each shopper alternates a gateway card and the no-op handler.
    const summary: ClusterSide[] = [];
    for (const side of sides) {
      const samples: number[] = [];
      const baseline: number[] = [];
      let errors = 0;
      await Promise.all(
        Array.from({ length: SHOPPERS }, async (_, shopper) => {
          for (let i = 0; i < CHECKOUTS_EACH * 2; i++) {
            const shop = new GraphqlClient(`${side.base}/shop-api`);
            await fillCart(shop, variantId);
            const t0 = performance.now();
            if ((i + shopper) % 2 === 0) {
              const r = await shop.query<{ gatewaykitStartPayment: { __typename: string } }>(
                `mutation ($card: GatewaykitCardInput) { gatewaykitStartPayment(input: { paymentMethodCode: "gatewaykit-card", card: $card }) { __typename } }`,
                { card: testCardForm(TEST_CARD_NUMBERS.success) },
              );
              samples.push(performance.now() - t0);
              if (r.gatewaykitStartPayment.__typename !== 'GatewaykitPaymentCompleted') errors++;
            } else {
              await shop.query(
                `mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`,
              );
              const r = await shop.query<{ addPaymentToOrder: { __typename: string } }>(
                `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) { __typename } }`,
              );
              baseline.push(performance.now() - t0);
              if (r.addPaymentToOrder.__typename !== 'Order') errors++;
            }
          }
        }),
      );
      console.log(
        `Checkout, ${side.name}, ${SHOPPERS} concurrent shoppers × ${CHECKOUTS_EACH} card + ${CHECKOUTS_EACH} no-op: ` +
          `card p50 ${percentile(samples, 50).toFixed(0)} ms, p95 ${percentile(samples, 95).toFixed(0)} ms; ` +
          `no-op p50 ${percentile(baseline, 50).toFixed(0)} ms, p95 ${percentile(baseline, 95).toFixed(0)} ms (not completed: ${errors})`,
      );
      summary.push({
        name: side.name,
        callbacksPerSecond: rates[sides.indexOf(side)] as number,
        checkouts: samples,
        baselineCheckouts: baseline,
      });
    }
    printClusterSummary('no-op', summary as [ClusterSide, ClusterSide]);
  } finally {
    await db.end();
    await cluster.stop();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
