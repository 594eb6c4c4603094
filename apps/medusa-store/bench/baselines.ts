import { adminTokenFor } from '../test/support/admin';
import { api, expectOk } from '../test/support/store-api';

/**
 * The checkout baselines (docs/performance.md): Medusa's system provider (authorizes only) and the
 * no-network provider that captures at once (src/modules/instant-capture, registered when the store
 * runs with GATEWAYKIT_BENCH_BASELINES=true).
 */
export const BASELINES = { system: 'pp_system_default', instant: 'pp_instant-capture_bench' } as const;

/**
 * The baselines let anyone order without paying, so the demo region never offers them: enabled here,
 * in a benchmark's own throwaway database only.
 */
export async function enableBaselineProviders(): Promise<void> {
  const token = await adminTokenFor();
  const { regions } = await expectOk(
    api('GET', '/admin/regions?fields=id,name,*payment_providers', { token }),
  );
  const region = regions.find((r: { name: string }) => r.name === 'Gatewaykit Demo');
  const providers = (region.payment_providers as { id: string }[]).map((provider) => provider.id);
  await expectOk(
    api('POST', `/admin/regions/${region.id}`, {
      token,
      body: { payment_providers: [...providers, ...Object.values(BASELINES)] },
    }),
  );
}
