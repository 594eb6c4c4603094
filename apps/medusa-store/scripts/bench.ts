import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from '@gatewaykit/cluster-testing';
import { startSandbox, TEST_CARD_NUMBERS } from '@gatewaykit/sandbox';
import { BASELINES, enableBaselineProviders } from '../bench/baselines';
import { CARD, complete, readyCart, startSession } from '../test/support/checkout';
import { registerCustomer, saveCard } from '../test/support/customer';
import { useStore } from '../test/support/store-api';
import { bootStore } from './boot';

/**
 * `npm run bench -w apps/medusa-store`: cart-completion latency (POST /store/carts/:id/complete) with
 * the gatewaykit stored-card provider against two baselines, same store, same run, interleaved:
 * Medusa's pp_system_default (authorizes only) and a no-network provider that captures at once
 * (src/modules/instant-capture: what Medusa itself adds for a captured payment). Prints p50/p95, the
 * ratios (goal: at most 1.2x) and the gateway requests inside the gatewaykit completion (the sandbox's
 * handling time). Figures, never assertions (docs/performance.md).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 20);
const WARMUP = 3;

async function timedComplete(cartId: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await complete(cartId, token);
  const elapsed = performance.now() - started;
  if (response.status !== 200 || response.body.type !== 'order') {
    throw new Error(`complete failed: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  }
  return elapsed;
}

type Kind = 'gatewaykit' | keyof typeof BASELINES;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatewaykit-medusa-bench-'));
  const gatewayNo = '12345678';
  const signKey = 'medusa-store-bench-sign-key';
  const sandbox = await startSandbox({ port: 0, merchants: [{ gatewayNo, signKey }] });
  const store = await bootStore({
    dataDir,
    port: 0,
    postgresPort: 0,
    gatewayBaseUrl: sandbox.url,
    gatewayNo,
    signKey,
    env: { GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true', GATEWAYKIT_BENCH_BASELINES: 'true' },
    log: () => {},
  });
  try {
    useStore(store.url, store.publishableKey);
    await enableBaselineProviders();
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, TEST_CARD_NUMBERS.success);
    const samples: Record<Kind, number[]> = { gatewaykit: [], system: [], instant: [] };
    const orders: Kind[][] = [
      ['gatewaykit', 'system', 'instant'],
      ['instant', 'gatewaykit', 'system'],
      ['system', 'instant', 'gatewaykit'],
    ];
    // Where the gatewaykit completion's extra time goes: the gateway requests each measured completion
    // made (the sandbox's own handling time, from its request log) against the whole difference.
    const gatewayMs: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS + WARMUP; round++) {
      for (const kind of orders[round % orders.length]!) {
        const { cartId, collectionId } = await readyCart({ token, email });
        if (kind === 'gatewaykit')
          await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
        else await startSession(collectionId, BASELINES[kind], {}, token);
        const logged = sandbox.requests().length;
        const elapsed = await timedComplete(cartId, token);
        if (round >= WARMUP) {
          samples[kind].push(elapsed);
          if (kind === 'gatewaykit') {
            for (const request of sandbox.requests().slice(logged)) {
              const name = request.operation ?? request.path;
              gatewayMs[name] ??= [];
              gatewayMs[name].push(request.durationMs);
            }
          }
        }
      }
    }
    const stats = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
    const g = stats(samples.gatewaykit);
    const s = stats(samples.system);
    const i = stats(samples.instant);
    const line = (label: string, x: { p50: number; p95: number }) =>
      console.log(`  ${label.padEnd(34)}: p50 ${x.p50.toFixed(1)} ms  p95 ${x.p95.toFixed(1)} ms`);
    const ratio = (label: string, x: { p50: number; p95: number }, y: { p50: number; p95: number }) =>
      console.log(
        `  ${label.padEnd(34)}: p50 ${(x.p50 / y.p50).toFixed(2)}x  p95 ${(x.p95 / y.p95).toFixed(2)}x (goal <= 1.2x)`,
      );
    console.log(`cart completion latency, ${ROUNDS} carts each (after ${WARMUP} warm-up rounds), one run:`);
    line('gatewaykit stored card', g);
    line('pp_system_default (authorizes)', s);
    line('instant-capture (captures, no I/O)', i);
    ratio('gatewaykit / pp_system_default', g, s);
    ratio('gatewaykit / instant-capture', g, i);
    ratio("Medusa's capture: instant / system", i, s);
    console.log(
      `  extra over instant-capture at p50 : ${(g.p50 - i.p50).toFixed(1)} ms per completion, of which at the gateway:`,
    );
    for (const [operation, durations] of Object.entries(gatewayMs)) {
      const perCompletion = durations.reduce((sum, ms) => sum + ms, 0) / ROUNDS;
      console.log(
        `    ${operation.padEnd(22)} ${(durations.length / ROUNDS).toFixed(1)} request(s), ${perCompletion.toFixed(1)} ms handled by the sandbox`,
      );
    }
  } finally {
    await store.stop();
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
