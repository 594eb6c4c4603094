/**
 * `npm run check:packages` (and the last step of `npm test`): the four published packages as a store
 * would get them. Needs the build (`npm run build`); no network, no login.
 *
 * 1. `npm publish --dry-run --offline` for each package (packs it exactly as a publish would).
 * 2. On each packed file list: LICENSE and README are in it; `license`, `repository` and
 *    `publishConfig` are set; every `main`/`module`/`types`/`bin`/`exports` target is a packed file
 *    (a `*` pattern must match at least one); siblings are depended on with a caret range their
 *    current version satisfies (never `*`); every source map, external or inline, names only sources
 *    that are packed too (the packages ship `src/` for that).
 * 3. Platform peers (`@medusajs/*`, `@vendure/*`) are ranges (`~x.y.z` or `^x.y.z`, never one exact
 *    version) that the version this workspace develops against (devDependencies) satisfies; the
 *    lowest and highest registry versions inside them are what `INSTALL_TEST_PLATFORMS=lowest|highest
 *    npm run test:install` installs. Every optional peer (peerDependenciesMeta) is a peer. `engines.node`
 *    is the root's (the supported Node lines, README "Node lines").
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const PACKAGES = ['core', 'sandbox', 'medusa-provider', 'vendure-plugin'];
const REPOSITORY = 'git+https://github.com/gatewaykit/gatewaykit.git';

type Manifest = {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  publishConfig?: { access?: string };
  main?: string;
  module?: string;
  types?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
  engines?: { node?: string };
};

const problems: string[] = [];
const manifests = new Map<string, { folder: string; manifest: Manifest }>();
for (const folder of PACKAGES) {
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'),
  ) as Manifest;
  manifests.set(manifest.name, { folder, manifest });
}

const started = Date.now();
const publish = spawnSync(
  'npm',
  [
    'publish',
    '--dry-run',
    '--offline',
    '--json',
    '--ignore-scripts',
    ...[...manifests.keys()].flatMap((name) => ['--workspace', name]),
  ],
  { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NPM_CONFIG_UPDATE_NOTIFIER: 'false' } },
);
if (publish.status !== 0) {
  console.error(publish.stdout, publish.stderr);
  console.error(`[check-packages] npm publish --dry-run failed (exit ${publish.status})`);
  process.exit(1);
}
const packed = JSON.parse(publish.stdout) as Record<string, { files: { path: string }[]; size: number }>;

/** The ranges `^x.y.z` a version satisfies (npm's caret rule, which pins the minor below 1.0.0). */
function caretSatisfies(range: string, version: string): boolean {
  const r = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!r || !v) return false;
  const [rMajor, rMinor, rPatch] = r.slice(1).map(Number) as [number, number, number];
  const [vMajor, vMinor, vPatch] = v.slice(1).map(Number) as [number, number, number];
  if (vMajor !== rMajor) return false;
  if (rMajor === 0 && vMinor !== rMinor) return false;
  return vMinor > rMinor || (vMinor === rMinor && vPatch >= rPatch);
}

/** npm's tilde rule for `~x.y.z`: the same major and minor, at least that patch. */
function tildeSatisfies(range: string, version: string): boolean {
  const r = /^~(\d+)\.(\d+)\.(\d+)$/.exec(range);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!r || !v) return false;
  return r[1] === v[1] && r[2] === v[2] && Number(v[3]) >= Number(r[3]);
}

const PLATFORM_PEER = /^@(medusajs|vendure)\//;
const rootEngines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest).engines?.node;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function targets(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const inner of Object.values(value)) targets(inner, into);
  return into;
}

for (const [name, { folder, manifest }] of manifests) {
  const fail = (message: string) => problems.push(`${name}: ${message}`);
  const dir = join(ROOT, 'packages', folder);
  const entry = packed[name];
  if (!entry) {
    fail('not packed by npm publish --dry-run');
    continue;
  }
  const files = new Set(entry.files.map((file) => file.path));

  if (manifest.private) fail('"private": true (cannot be published)');
  if (manifest.license !== 'MIT') fail(`license is ${manifest.license}, expected MIT`);
  for (const required of ['LICENSE', 'README.md', 'package.json']) {
    if (!files.has(required)) fail(`${required} is not packed`);
  }
  const repo = manifest.repository;
  if (repo?.type !== 'git' || repo.url !== REPOSITORY || repo.directory !== `packages/${folder}`) {
    fail(`repository must be { type: git, url: ${REPOSITORY}, directory: packages/${folder} }`);
  }
  if (manifest.publishConfig?.access !== 'public')
    fail('publishConfig.access must be "public" (scoped package)');

  // Every entry point resolves to a packed file.
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  const entryPoints = [manifest.main, manifest.module, manifest.types, ...bins, ...targets(manifest.exports)];
  let checked = 0;
  for (const target of entryPoints) {
    if (target === undefined) continue;
    checked++;
    const path = posix.normalize(target);
    if (path.includes('*')) {
      const pattern = new RegExp(`^${path.split('*').map(escapeRegExp).join('[^]+')}$`);
      if (![...files].some((file) => pattern.test(file)))
        fail(`export pattern ${target} matches no packed file`);
    } else if (!files.has(path)) {
      fail(
        `${target} is not packed${existsSync(join(dir, path)) ? '' : ' (not even built: run npm run build)'}`,
      );
    }
  }

  // Siblings: real semver ranges, satisfied by the sibling in this workspace (so npm links it).
  for (const deps of [manifest.dependencies, manifest.peerDependencies]) {
    for (const [dep, range] of Object.entries(deps ?? {})) {
      const sibling = manifests.get(dep);
      if (!sibling) continue;
      if (!caretSatisfies(range, sibling.manifest.version)) {
        fail(`depends on ${dep}@"${range}"; expected ^x.y.z satisfied by ${sibling.manifest.version}`);
      }
    }
  }

  // Platform peers: ranges the developed-against version satisfies; optional peers are peers.
  for (const [dep, range] of Object.entries(manifest.peerDependencies ?? {})) {
    if (!PLATFORM_PEER.test(dep)) continue;
    const developed = manifest.devDependencies?.[dep];
    const ok = range.startsWith('~') ? tildeSatisfies : caretSatisfies;
    if (!/^[~^]\d+\.\d+\.\d+$/.test(range)) {
      fail(`peer ${dep}@"${range}" must be a range ~x.y.z or ^x.y.z (as wide as the install test proves)`);
    } else if (developed && !ok(range, developed)) {
      fail(`peer ${dep}@"${range}" does not include the version developed against (${developed})`);
    }
  }
  for (const dep of Object.keys(manifest.peerDependenciesMeta ?? {})) {
    if (!manifest.peerDependencies?.[dep]) fail(`peerDependenciesMeta names ${dep}, which is not a peer`);
  }
  if (manifest.engines?.node !== rootEngines) {
    fail(`engines.node is "${manifest.engines?.node}", expected the root's "${rootEngines}"`);
  }

  // Source maps name only packed sources.
  let maps = 0;
  const checkMap = (file: string, json: string) => {
    maps++;
    const map = JSON.parse(json) as { sources?: string[]; sourceRoot?: string };
    for (const source of map.sources ?? []) {
      const resolved = posix.normalize(posix.join(posix.dirname(file), map.sourceRoot ?? '', source));
      if (!files.has(resolved)) fail(`${file} maps to ${source} (${resolved}), which is not packed`);
    }
  };
  for (const file of files) {
    if (file.endsWith('.map')) {
      checkMap(file, readFileSync(join(dir, file), 'utf8'));
    } else if (/\.(c|m)?js$/.test(file)) {
      const text = readFileSync(join(dir, file), 'utf8');
      const inline =
        /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/.exec(
          text,
        );
      if (inline?.[1]) checkMap(file, Buffer.from(inline[1], 'base64').toString('utf8'));
      const external = /\/\/# sourceMappingURL=(?!data:)(\S+)\s*$/.exec(text);
      if (external?.[1] && !files.has(posix.join(posix.dirname(file), external[1]))) {
        fail(`${file} names the source map ${external[1]}, which is not packed`);
      }
    }
  }
  console.log(
    `[check-packages] ${name}@${manifest.version}: ${files.size} files, ${(entry.size / 1024).toFixed(0)} kB packed, ${checked} entry points, ${maps} source maps`,
  );
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`[check-packages] ✗ ${problem}`);
  process.exit(1);
}
console.log(
  `[check-packages] ok: npm publish --dry-run of ${manifests.size} packages (${Date.now() - started} ms)`,
);
