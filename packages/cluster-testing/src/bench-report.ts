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

/** What `timedBurst` measured: the wall time, each answered item's latency (ms), and the refused. */
export interface Burst {
  seconds: number;
  latencies: number[];
  /** Items whose `send` resolved to NaN (not answered as the sender wanted). */
  refused: number;
  /** Items per second, refused ones included. */
  rate: number;
}

/**
 * Sends every item with at most `width` in flight and times the whole burst; `send` resolves to the
 * item's latency in ms, or NaN when it was refused.
 */
export async function timedBurst<T>(
  items: readonly T[],
  width: number,
  send: (item: T) => Promise<number>,
): Promise<Burst> {
  const latencies: number[] = [];
  let refused = 0;
  const started = performance.now();
  await inParallel(items, width, async (item) => {
    const latency = await send(item);
    if (Number.isNaN(latency)) refused++;
    else latencies.push(latency);
  });
  const seconds = (performance.now() - started) / 1000;
  return { seconds, latencies, refused, rate: items.length / seconds };
}

/** A rate for print: whole numbers from 10 up, one decimal below (1.8/s, not 2/s). */
function perSecond(rate: number): string {
  return rate >= 10 ? rate.toFixed(0) : rate.toFixed(1);
}

/** "p50 12 ms, p95 30 ms" of latencies in ms. */
export function latencyLine(latencies: readonly number[]): string {
  return `p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms`;
}

/** "3.85 s = 16 orders/s; answered other than success: 0; latency p50 …" of a burst. */
function burstLine(burst: Burst, unit: string): string {
  return (
    `${burst.seconds.toFixed(2)} s = ${perSecond(burst.rate)} ${unit}; answered other than success: ` +
    `${burst.refused}; latency ${latencyLine(burst.latencies)}`
  );
}

/** Shuffles `items` in place. */
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** The two callback rates of one side: first callbacks (orders/s) and duplicate callbacks (/s). */
export interface CallbackRates {
  first: number;
  duplicate: number;
  /**
   * Where callbacks are answered once kept and recorded by a worker (`recorded` given): orders recorded
   * per second, from the first callback sent to the last order recorded.
   */
  recorded?: number;
}

/** How often, and for how long at most, `recorded` is asked while the worker catches up. */
const RECORDED_POLL_MS = 25;
const RECORDED_DEADLINE_MS = 300_000;

/** Ms from now until `recorded()` answers true (polled), or NaN when it never does by the deadline. */
async function msUntil(recorded: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await recorded())) {
    if (performance.now() - started > RECORDED_DEADLINE_MS) return Number.NaN;
    await new Promise((resolve) => setTimeout(resolve, RECORDED_POLL_MS));
  }
  return performance.now() - started;
}

/**
 * The callback figures of one side of a cluster benchmark (docs/performance.md, "Callbacks per second"),
 * printed: the first paid order's success callback sent alone (its latency without contention); then
 * (a) every other order's first callback, all at once, shuffled, `width` in flight: each one makes the
 * platform record a payment (orders/s); then (b) `copies` more copies of every order's callback,
 * shuffled, `width` in flight, answered from the stored final outcome (callbacks/s). `send` resolves to
 * a callback's latency in ms, NaN unless answered `success`; `check` runs after each phase and returns
 * the exactly-once line to print. With `recorded` (callbacks recorded by a worker), the first callbacks
 * also print how long after the last answer every order was recorded, and the recorded rate.
 */
export async function callbackPhases<T>(options: {
  side: string;
  /** One success callback per paid order (what `send` needs to send it). */
  callbacks: readonly T[];
  copies: number;
  width: number;
  send: (callback: T) => Promise<number>;
  check: () => Promise<string>;
  /**
   * Whether every order is recorded, for a side that answers callbacks once kept and records them in a
   * worker: asked (polled) after the first callbacks are answered, so the rates say when the gateway got
   * its answers and when the platform had recorded every payment.
   */
  recorded?: () => Promise<boolean>;
  log?: (line: string) => void;
}): Promise<CallbackRates> {
  const { side, callbacks, copies, width, send, check, recorded } = options;
  const [lone, ...rest] = callbacks;
  const alone = lone === undefined ? Number.NaN : await send(lone);
  options.log?.(`callbacks, ${side}: sending ${rest.length} first callbacks …`);
  const first = await timedBurst(shuffle(rest), width, send);
  const lag = recorded ? await msUntil(recorded) : undefined;
  const recordedRate = lag === undefined ? undefined : rest.length / (first.seconds + lag / 1000);
  console.log(
    `First callbacks, ${side}: ${rest.length} orders (one success callback each, ${width} in flight) in ` +
      `${burstLine(first, 'orders/s')}; one first callback alone ${alone.toFixed(0)} ms; ` +
      (lag === undefined
        ? ''
        : `every order recorded by the worker ${lag.toFixed(0)} ms after the last answer (${perSecond(recordedRate ?? Number.NaN)} orders/s recorded); `) +
      (await check()),
  );
  const duplicates = shuffle(callbacks.flatMap((callback) => Array.from({ length: copies }, () => callback)));
  options.log?.(`callbacks, ${side}: sending ${duplicates.length} duplicate callbacks …`);
  const duplicate = await timedBurst(duplicates, width, send);
  console.log(
    `Duplicate callbacks, ${side}: ${duplicates.length} (${callbacks.length} orders × ${copies}, ${width} in flight) ` +
      `in ${burstLine(duplicate, 'callbacks/s')}; ${await check()}`,
  );
  return {
    first: first.rate,
    duplicate: duplicate.rate,
    ...(recordedRate === undefined ? {} : { recorded: recordedRate }),
  };
}

/** "p50 1.08x, p95 1.12x" of `measured` over `baseline`. */
export function ratios(measured: readonly number[], baseline: readonly number[]): string {
  const at = (p: number) => (percentile(measured, p) / percentile(baseline, p)).toFixed(2);
  return `p50 ${at(50)}x, p95 ${at(95)}x`;
}

export interface ClusterSide {
  name: string;
  /** What `callbackPhases` measured on this side. */
  callbacks: CallbackRates;
  /** Checkout latencies with the gateway (ms). */
  checkouts: number[];
  /** Checkout latencies with the baseline payment, under the same load (ms). */
  baselineCheckouts: number[];
}

/** Prints both callback rates of each side, the two-instance against one-instance ratios and each side's checkout overhead. */
export function printClusterSummary(baselineName: string, [one, two]: [ClusterSide, ClusterSide]): void {
  console.log(`Callbacks, one vs two instances (goal ≥ 200/s per instance, ≥ 1.7× with two):`);
  const rates = (label: string, unit: string, rate: (side: ClusterSide) => number) =>
    console.log(
      `  ${label}  one ${perSecond(rate(one))} ${unit}, two ${perSecond(rate(two))} ${unit}: ${(rate(two) / rate(one)).toFixed(2)}x`,
    );
  rates('first callbacks    ', 'orders/s', (side) => side.callbacks.first);
  if (one.callbacks.recorded !== undefined && two.callbacks.recorded !== undefined) {
    // One worker records for both sides: the second instance adds answers, not recording.
    rates('  recorded by worker', 'orders/s', (side) => side.callbacks.recorded ?? Number.NaN);
  }
  rates('duplicate callbacks', 'callbacks/s', (side) => side.callbacks.duplicate);
  console.log(`Ratios two / one instance (the machine's cores are shared by all processes):`);
  console.log(`  checkout      ${ratios(two.checkouts, one.checkouts)} (lower is better)`);
  console.log('Checkout overhead under load (same shoppers, same side):');
  for (const side of [one, two]) {
    console.log(
      `  gateway / ${baselineName}, ${side.name}: ${ratios(side.checkouts, side.baselineCheckouts)} (goal <= 1.2x)`,
    );
  }
}
