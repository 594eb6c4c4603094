/**
 * `npm test`, as CI runs it: every workspace's tests through turbo (build first, one workspace at a
 * time), each real-store suite keeping what it stored, logged and answered in its `.evidence/`
 * folder, then the published packages' check (scripts/check-packages.ts), the install test of the
 * READMEs (scripts/install-test.ts), the packages' suites on the other Node lines (scripts/node-lines.ts)
 * and the card-data scan over all of it (docs/SECURITY.md).
 */
import { spawn, spawnSync } from 'node:child_process';
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
// `--force`: every suite runs, whatever turbo has cached (a local or remote cache would otherwise count
// an earlier pass as this run's).
run('npx', ['turbo', 'run', 'test', '--concurrency=1', '--force', ...process.argv.slice(2)], {
  ...process.env,
  GATEWAYKIT_EVIDENCE_DIR: '.evidence',
});
/** Runs the scripts at once (each prefixes its own lines); resolves to the first failure's exit code, or 0. */
function together(scripts: string[]): Promise<number> {
  const exits = scripts.map(
    (script) =>
      new Promise<number>((resolve) => {
        const child = spawn('npx', ['tsx', script], { cwd: ROOT, stdio: 'inherit' });
        child.on('exit', (code) => resolve(code ?? 1));
        child.on('error', () => resolve(1));
      }),
  );
  return Promise.all(exits).then((codes) => codes.find((code) => code !== 0) ?? 0);
}

function scanEvidence(): void {
  console.log('[test] card-data scan of the evidence');
  run('npx', ['tsx', 'scripts/scan-card-data.ts']);
}

if (process.argv.length > 2) {
  scanEvidence();
} else {
  // Every package is built now; a filtered run (extra turbo arguments) may not have built all four.
  console.log('[test] the four packages as published (scripts/check-packages.ts)');
  run('npx', ['tsx', 'scripts/check-packages.ts']);
  // At once, as they load the machine differently (the install test mostly waits on npm, the disk and
  // Postgres; the other lines' suites are CPU work):
  // - the READMEs as a store builder follows them: packed packages in a fresh Medusa app and a fresh
  //   Vendure server outside the workspace, one order each (scripts/install-test.ts);
  // - the packages' unit and contract suites on the other supported Node lines (scripts/node-lines.ts).
  console.log('[test] Node binaries of the supported lines (scripts/node-binary.ts)');
  run('npx', ['tsx', 'scripts/node-binary.ts']);
  console.log('[test] install test (the READMEs in a fresh Medusa app and Vendure server) and node lines');
  void together(['scripts/install-test.ts', 'scripts/node-lines.ts']).then((code) => {
    if (code !== 0) process.exit(code);
    scanEvidence();
  });
}
