import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, TEST_CARD_NUMBERS } from '@gatewaykit/sandbox';
import { CARD, complete, readyCart, startSession } from '../test/support/checkout';
import { registerCustomer, saveCard } from '../test/support/customer';
import { useStore } from '../test/support/store-api';
import { bootStore } from './boot';

/**
 * `npm run bench -w apps/medusa-store`: cart-completion latency (POST /store/carts/:id/complete) with
 * the gatewaykit stored-card provider vs Medusa's pp_system_default, same store, same run, interleaved.
 * Prints p50/p95 and their ratio (goal: at most 1.3x). A figure, never an assertion.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 20);
const WARMUP = 3;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function timedComplete(cartId: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await complete(cartId, token);
  const elapsed = performance.now() - started;
  if (response.status !== 200 || response.body.type !== 'order') {
    throw new Error(`complete failed: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
  }
  return elapsed;
}

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
    env: { GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true' },
    log: () => {},
  });
  try {
    useStore(store.url, store.publishableKey);
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, TEST_CARD_NUMBERS.success);
    const samples: Record<'gatewaykit' | 'system', number[]> = { gatewaykit: [], system: [] };
    for (let round = 0; round < ROUNDS + WARMUP; round++) {
      for (const kind of round % 2 === 0
        ? (['gatewaykit', 'system'] as const)
        : (['system', 'gatewaykit'] as const)) {
        const { cartId, collectionId } = await readyCart({ token, email });
        if (kind === 'gatewaykit')
          await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
        else await startSession(collectionId, 'pp_system_default', {}, token);
        const elapsed = await timedComplete(cartId, token);
        if (round >= WARMUP) samples[kind].push(elapsed);
      }
    }
    const stats = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
    };
    const g = stats(samples.gatewaykit);
    const s = stats(samples.system);
    console.log(`cart completion latency, ${ROUNDS} carts each (after ${WARMUP} warm-up rounds), one run:`);
    console.log(`  gatewaykit stored card : p50 ${g.p50.toFixed(1)} ms  p95 ${g.p95.toFixed(1)} ms`);
    console.log(`  pp_system_default      : p50 ${s.p50.toFixed(1)} ms  p95 ${s.p95.toFixed(1)} ms`);
    console.log(
      `  ratio                  : p50 ${(g.p50 / s.p50).toFixed(2)}x  p95 ${(g.p95 / s.p95).toFixed(2)}x (goal <= 1.3x)`,
    );
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
