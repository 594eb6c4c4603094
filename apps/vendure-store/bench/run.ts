/**
 * `npm run bench`: latency of paying an order with a saved card (gatewaykitStartPayment → sandbox
 * confirmCharge → Settled payment) vs paying the same order shape with a no-op handler
 * (transitionOrderToState + addPaymentToOrder). One run, same server, same process, p50 and p95 and
 * their ratios (goal: at most 1.2x; docs/performance.md). Figures, never assertions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from '@gatewaykit/cluster-testing';
import { startSandbox, TEST_CARD_NUMBERS } from '@gatewaykit/sandbox';
import { settingsFromEnv } from '../src/config';
import { DEMO_MERCHANTS } from '../src/gateways';
import { GraphqlClient } from '../src/graphql-client';
import { startStore } from '../src/server';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const WARMUP = 5;

async function main(): Promise<void> {
  process.env.VENDURE_DISABLE_TELEMETRY = 'true';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-bench-'));
  const sandbox = await startSandbox({ port: 0, merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp] });
  const settings = {
    ...settingsFromEnv({ ...process.env, PORT: process.env.BENCH_PORT ?? '3197', LOG_LEVEL: 'error' }),
    dbPath: path.join(dir, 'bench.sqlite'),
    benchBaseline: true,
    // In memory: a file write per commit would dominate both sides and hide the plugin's own cost.
    persist: false,
  };
  const app = await startStore(settings, {
    main: { ...DEMO_MERCHANTS.main, baseUrl: sandbox.url },
    jp: { ...DEMO_MERCHANTS.jp, baseUrl: sandbox.url },
  });
  const shopUrl = `http://127.0.0.1:${settings.port}/shop-api`;
  try {
    const shop = new GraphqlClient(shopUrl);
    await shop.query(`mutation { registerCustomerAccount(input: { emailAddress: "bench@example.com", firstName: "Bench",
      lastName: "Mark", password: "bench-password" }) { __typename } }`);
    await shop.query(
      `mutation { login(username: "bench@example.com", password: "bench-password") { __typename } }`,
    );
    const saved = await shop.query<{ gatewaykitSaveCard: { id: string } }>(
      `mutation { gatewaykitSaveCard(input: { paymentMethodCode: "gatewaykit-card", line1: "1 Bench St", city: "London",
        countryCode: "GB", card: { cardNo: "${TEST_CARD_NUMBERS.success}", cardExpireMonth: "12", cardExpireYear: "2030",
        cardSecurityCode: "123" } }) { id } }`,
    );
    const cardId = saved.gatewaykitSaveCard.id;
    const { products } = await shop.query<{ products: { items: { variants: { id: string }[] }[] } }>(
      `{ products(options: { take: 1, sort: { id: ASC } }) { items { variants { id } } } }`,
    );
    const variantId = products.items[0]?.variants[0]?.id;

    const prepare = async () => {
      await shop.query(
        `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 1) { __typename } }`,
        {
          id: variantId,
        },
      );
      await shop.query(`mutation { setOrderShippingAddress(input: { fullName: "Bench", streetLine1: "1 Bench St",
        city: "London", postalCode: "N1 1AA", countryCode: "GB" }) { __typename } }`);
      await shop.query(`mutation { setOrderShippingMethod(shippingMethodId: ["1"]) { __typename } }`);
    };

    const payGateway = async () => {
      const r = await shop.query<{ gatewaykitStartPayment: { __typename: string } }>(
        `mutation ($id: String!) { gatewaykitStartPayment(input: { paymentMethodCode: "gatewaykit-card", savedCardId: $id }) {
          __typename ... on GatewaykitPaymentCompleted { order { id code state } } } }`,
        { id: cardId },
      );
      if (r.gatewaykitStartPayment.__typename !== 'GatewaykitPaymentCompleted') {
        throw new Error(`gateway payment: ${r.gatewaykitStartPayment.__typename}`);
      }
    };
    const payNoop = async () => {
      await shop.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
      const r = await shop.query<{ addPaymentToOrder: { __typename: string } }>(
        `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) {
          __typename ... on Order { id code state } } }`,
      );
      if (r.addPaymentToOrder.__typename !== 'Order')
        throw new Error(`noop payment: ${r.addPaymentToOrder.__typename}`);
    };

    const samples = { gateway: [] as number[], noop: [] as number[] };
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      // Alternate so drift (DB growth, GC) hits both sides equally.
      for (const kind of i % 2 === 0 ? (['gateway', 'noop'] as const) : (['noop', 'gateway'] as const)) {
        await prepare();
        const t0 = performance.now();
        await (kind === 'gateway' ? payGateway() : payNoop());
        const ms = performance.now() - t0;
        if (i >= WARMUP) samples[kind].push(ms);
      }
    }
    const stats = (xs: number[]) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95) });
    const g = stats(samples.gateway);
    const n = stats(samples.noop);
    console.log(`Pay one order (${ITERATIONS} iterations each; sandbox on loopback, sql.js)`);
    console.log(`  saved card via gateway : p50 ${g.p50.toFixed(1)} ms  p95 ${g.p95.toFixed(1)} ms`);
    console.log(`  no-op handler baseline : p50 ${n.p50.toFixed(1)} ms  p95 ${n.p95.toFixed(1)} ms`);
    console.log(
      `  ratio gateway / no-op  : p50 ${(g.p50 / n.p50).toFixed(2)}x  p95 ${(g.p95 / n.p95).toFixed(2)}x (goal <= 1.2x)`,
    );
  } finally {
    await app.close();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
