/**
 * `npm run test:node-lines` (and a step of `npm test`): the packages' unit and contract suites under
 * every supported Node line besides the one running everything else.
 *
 * The supported lines are 22 and 24 (README "Node lines"); their binaries come from the npm registry
 * (scripts/node-binary.ts). Each package's
 * `vitest run` (packages/core, sandbox, medusa-provider, vendure-plugin) runs with that binary first
 * on PATH, so whatever the suites spawn runs on it too. Needs the build (`npm run build`).
 *
 * `NODE_LINES="22.15.0 24.21.0"` chooses the versions (default: node-binary.ts's NODE_LINES).
 */
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { NODE_LINES, nodeBinary } from './node-binary';

const ROOT = join(import.meta.dirname, '..');
// The line running everything else (CI's primary, 24) already ran these suites in turbo.
const VERSIONS = (process.env['NODE_LINES']?.split(/[\s,]+/).filter(Boolean) ?? NODE_LINES).filter(
  (version) => `v${version}` !== process.version,
);
const PACKAGES = ['core', 'sandbox', 'medusa-provider', 'vendure-plugin'];
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const started = Date.now();

function log(line: string): void {
  console.log(`[node-lines +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
}

const failures: string[] = [];
for (const version of VERSIONS) {
  const at = Date.now();
  const node = nodeBinary(version);
  log(`node v${version} ready (${((Date.now() - at) / 1000).toFixed(1)} s): ${node}`);
  const binDir = join(node, '..');
  for (const name of PACKAGES) {
    const suiteStarted = Date.now();
    const result = spawnSync(node, [VITEST, 'run', '--reporter=dot'], {
      cwd: join(ROOT, 'packages', name),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, CI: '1', NO_COLOR: '1' },
    });
    const seconds = ((Date.now() - suiteStarted) / 1000).toFixed(1);
    const summary = `${result.stdout}`.match(/Tests\s+.*$/m)?.[0]?.trim() ?? '';
    if (result.status === 0) {
      log(`node v${version} packages/${name}: ok, ${summary} (${seconds} s)`);
    } else {
      console.error(result.stdout.slice(-6000), result.stderr.slice(-3000));
      log(`node v${version} packages/${name}: FAILED (exit ${result.status}, ${seconds} s)`);
      failures.push(`node v${version} packages/${name}`);
    }
  }
}
if (failures.length > 0) {
  console.error(`[node-lines] ✗ ${failures.join(', ')}`);
  process.exit(1);
}
log(`ok: ${PACKAGES.length} packages × node ${VERSIONS.join(', ')}`);
