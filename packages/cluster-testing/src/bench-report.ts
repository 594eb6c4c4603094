/**
 * What the cluster benchmarks of both stores print alike (docs/performance.md): percentiles, a pool of
 * concurrent work, and the summary of one instance against two. Figures, never assertions.
 */

/** The p-th percentile (nearest rank) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Runs `work` over `items` with at most `width` in flight. */
export async function inParallel<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(width, queue.length) }, lane));
}

/** "p50 1.08x, p95 1.12x" of `measured` over `baseline`. */
export function ratios(measured: readonly number[], baseline: readonly number[]): string {
  const at = (p: number) => (percentile(measured, p) / percentile(baseline, p)).toFixed(2);
  return `p50 ${at(50)}x, p95 ${at(95)}x`;
}

export interface ClusterSide {
  name: string;
  /** Callbacks handled exactly once per second. */
  callbacksPerSecond: number;
  /** Checkout latencies with the gateway (ms). */
  checkouts: number[];
  /** Checkout latencies with the baseline payment, under the same load (ms). */
  baselineCheckouts: number[];
}

/** Prints the two-instance against one-instance ratios and each side's checkout overhead. */
export function printClusterSummary(baselineName: string, [one, two]: [ClusterSide, ClusterSide]): void {
  console.log(`Ratios two / one instance (the machine's cores are shared by all processes):`);
  console.log(
    `  callbacks/s   ${(two.callbacksPerSecond / one.callbacksPerSecond).toFixed(2)}x (goal >= 1.7x; >= 200/s per instance)`,
  );
  console.log(`  checkout      ${ratios(two.checkouts, one.checkouts)} (lower is better)`);
  console.log('Checkout overhead under load (same shoppers, same side):');
  for (const side of [one, two]) {
    console.log(
      `  gateway / ${baselineName}, ${side.name}: ${ratios(side.checkouts, side.baselineCheckouts)} (goal <= 1.2x)`,
    );
  }
}
