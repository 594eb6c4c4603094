/**
 * `npm test`, as CI runs it: every workspace's tests through turbo (build first, one workspace at a
 * time), each real-store suite keeping what it stored, logged and answered in its `.evidence/`
 * folder, then the published packages' check (scripts/check-packages.ts), the install test of the
 * READMEs (scripts/install-test.ts) and the card-data scan over all of it (docs/SECURITY.md).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// Evidence of an earlier run must not be scanned (turbo restores a cached suite's own evidence).
for (const group of ['apps', 'packages']) {
  for (const name of readdirSync(join(ROOT, group))) {
    rmSync(join(ROOT, group, name, '.evidence'), { recursive: true, force: true });
  }
}
console.log('[test] turbo run test (evidence kept in each workspace’s .evidence/)');
// Relative: each suite writes under its own workspace folder, which turbo caches with its results.
run('npx', ['turbo', 'run', 'test', '--concurrency=1', ...process.argv.slice(2)], {
  ...process.env,
  GATEWAYKIT_EVIDENCE_DIR: '.evidence',
});
if (process.argv.length <= 2) {
  // Every package is built now; a filtered run (extra turbo arguments) may not have built all four.
  console.log('[test] the four packages as published (scripts/check-packages.ts)');
  run('npx', ['tsx', 'scripts/check-packages.ts']);
  // The READMEs as a store builder follows them: packed packages in a fresh Medusa app and a fresh
  // Vendure server outside the workspace, one order each (scripts/install-test.ts).
  console.log('[test] install test: the READMEs in a fresh Medusa app and Vendure server');
  run('npx', ['tsx', 'scripts/install-test.ts']);
}
console.log('[test] card-data scan of the evidence');
run('npx', ['tsx', 'scripts/scan-card-data.ts']);
