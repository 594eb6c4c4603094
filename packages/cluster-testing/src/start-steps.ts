/**
 * A start-up in named steps: each step is announced before it runs (a newcomer sees what is slow) and
 * its duration is logged and kept for the caller's report.
 */
export function startSteps(log: (line: string) => void, label: string) {
  const timings: Record<string, number> = {};
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    log(`[${label}] ${name} …`);
    const started = Date.now();
    const result = await work();
    timings[name] = Date.now() - started;
    log(`[${label}] ${name}: done in ${timings[name]} ms`);
    return result;
  };
  return { timings, step };
}

/**
 * Runs `stop` once, on the first SIGINT or SIGTERM, then exits 0: a second signal during the stop
 * does not start another one.
 */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = async () => {
    if (stopping) return;
    stopping = true;
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
