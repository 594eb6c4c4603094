/**
 * `npm run test:install` (and a step of `npm test`): the READMEs are the install test.
 *
 * As a store builder would, outside the workspace: the four packages packed with `npm pack`, a fresh
 * Medusa app and a fresh Vendure server in temporary folders (the minimum files, no create-* CLI),
 * the platform packages from the registry, then only what the READMEs say. The snippets run here are
 * the READMEs' own code blocks marked `<!-- install-test: <name> -->` (see SNIPPETS below; a marker
 * found in several READMEs must mark the same text everywhere), so a README change that breaks them
 * fails this test. It then starts the sandbox the README's way, migrates and boots each platform and
 * pays one hosted-checkout order per platform against the sandbox: the gateway's page is posted like a
 * shopper would, the signed callback must be delivered, and the order must end captured (Medusa) /
 * PaymentSettled (Vendure).
 *
 * Platform versions: `INSTALL_TEST_PLATFORMS=installed` (default: the versions this workspace
 * installs), `lowest` or `highest` (the lowest / highest registry versions inside the packages' peer
 * ranges). Node: the stores, npm and the sandbox run on a supported line (README "Node lines"): this
 * process's Node when it is one, else the newest of scripts/node-binary.ts's NODE_LINES from the
 * registry; `INSTALL_TEST_NODE=22.15.0` chooses one. `INSTALL_TEST_ONLY=medusa|vendure` runs one platform; `INSTALL_TEST_KEEP=1` keeps the
 * temporary folder (kept anyway when a step fails). Needs the build (`npm run build`), the npm registry
 * (reusing npm's cache) and nothing else from the internet. Postgres is the repository's embedded one
 * (`startEmbeddedPostgres` of packages/cluster-testing), shared by both platforms.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { freePort, type RunningPostgres, startEmbeddedPostgres } from '@gatewaykit/cluster-testing';
import { submitSandboxPage, TEST_CARD_NUMBERS } from '@gatewaykit/sandbox';
import { GraphqlClient, loginAdmin } from '../apps/vendure-store/src/graphql-client';
import { NODE_LINES, nodeBinary } from './node-binary';

const ROOT = join(import.meta.dirname, '..');
const PACKAGES = ['core', 'sandbox', 'medusa-provider', 'vendure-plugin'];
const READMES = ['README.md', ...PACKAGES.map((name) => `packages/${name}/README.md`)];
/** The marked README snippets this test runs, and what each must be. */
const SNIPPETS = {
  'sandbox-install': 'sh: installs the sandbox (npm install … @gatewaykit/sandbox)',
  sandbox: 'sh: starts the sandbox (npx …)',
  'medusa-install': 'sh: npm install of the Medusa packages',
  'medusa-config': 'ts: the part of medusa-config.ts inside defineConfig({ … })',
  'medusa-migrate': 'sh: the migration command',
  'vendure-install': 'sh: npm install of the Vendure packages',
  'vendure-config': 'ts: imports + the part of vendure-config.ts inside the VendureConfig object',
  'vendure-migration-script': 'ts: migration.ts',
  'vendure-migrate': 'sh: the migration commands',
  'vendure-payment-method': 'graphql: the Admin API mutation that creates a gatewaykit payment method',
  'vendure-payment-method-variables':
    'json: its variables (a hosted method on the sandbox; the test puts in the running sandbox)',
} as const;
type SnippetName = keyof typeof SNIPPETS;

const only = process.env['INSTALL_TEST_ONLY'];
const platforms = process.env['INSTALL_TEST_PLATFORMS'] ?? 'installed';
if (!['installed', 'lowest', 'highest'].includes(platforms)) {
  fail(`INSTALL_TEST_PLATFORMS must be installed, lowest or highest (got ${platforms})`);
}
/** Node 22 from 22.15, or 24 and later: the packages' engines. */
function supported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return (major === 22 && minor >= 15) || major >= 24;
}
const nodeVersion =
  process.env['INSTALL_TEST_NODE'] ?? (supported(process.version) ? undefined : NODE_LINES.at(-1));
/** PATH with the chosen Node first, for every command this test runs. */
const PATH = nodeVersion
  ? `${dirname(nodeBinary(nodeVersion))}${delimiter}${process.env.PATH ?? ''}`
  : (process.env.PATH ?? '');
const started = Date.now();
const WORK = mkdtempSync(join(tmpdir(), 'gatewaykit-install-test-'));
const children = new Map<string, ChildProcess>();
let postgres: RunningPostgres | undefined;

function log(line: string): void {
  console.log(`[install-test +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
}

function fail(message: string): never {
  throw new Error(message);
}

async function step<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  const at = Date.now();
  log(`${name} …`);
  const result = await work();
  log(`${name}: ${((Date.now() - at) / 1000).toFixed(1)} s`);
  return result;
}

// ---------------------------------------------------------------------------------------------- snippets

function readSnippets(): Map<SnippetName, string> {
  const found = new Map<string, { text: string; where: string }>();
  const marker = /<!-- install-test: ([\w-]+) -->\s*\n```[\w-]*\n([\s\S]*?)\n```/g;
  for (const readme of READMES) {
    const text = readFileSync(join(ROOT, readme), 'utf8');
    for (const match of text.matchAll(marker)) {
      const [, name = '', body = ''] = match;
      if (!(name in SNIPPETS)) fail(`${readme}: unknown install-test marker "${name}"`);
      const earlier = found.get(name);
      if (earlier && earlier.text !== body) {
        fail(`the install-test snippet "${name}" differs between ${earlier.where} and ${readme}`);
      }
      found.set(name, { text: body, where: readme });
    }
  }
  const snippets = new Map<SnippetName, string>();
  for (const name of Object.keys(SNIPPETS) as SnippetName[]) {
    const snippet = found.get(name);
    if (!snippet) fail(`no README marks the snippet "${name}" (${SNIPPETS[name]})`);
    snippets.set(name, snippet.text);
  }
  return snippets;
}

/** The shell commands of a sh snippet: one per line, comments and blank lines dropped. */
function commands(snippet: string): string[] {
  return snippet
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean);
}

/** Splits a TypeScript snippet into its import lines and the rest (the body of an object literal). */
function splitImports(snippet: string): { imports: string; body: string } {
  const lines = snippet.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const body = lines.filter((line) => !line.startsWith('import '));
  return { imports: imports.join('\n'), body: body.join('\n') };
}

/**
 * The packages are not on the registry here: every `@gatewaykit/<name>` of an `npm install` line is
 * its tarball, and core's tarball is added (every package depends on it).
 */
function withTarballs(command: string, tarballs: Map<string, string>): string {
  if (!/^npm (install|i|add)\b/.test(command)) return command;
  let rewritten = command.replace(/@gatewaykit\/[a-z-]+/g, (name) => {
    const tarball = tarballs.get(name);
    if (!tarball) fail(`${command}: ${name} is not one of the packed packages`);
    return tarball;
  });
  const core = tarballs.get('@gatewaykit/core')!;
  if (!rewritten.includes(core)) rewritten += ` ${core}`;
  return `${rewritten} --prefer-offline --no-audit --no-fund --loglevel=error`;
}

// --------------------------------------------------------------------------------------------- processes

function run(command: string, cwd: string, logName: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const logFile = join(WORK, `${logName}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  out.write(`$ ${command}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: { ...process.env, PATH, ...env } });
    let tail = '';
    const keep = (chunk: Buffer) => {
      out.write(chunk);
      tail = (tail + chunk.toString()).slice(-3000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) => {
      out.end();
      if (code === 0) resolve();
      else reject(new Error(`\`${command}\` in ${cwd} failed (exit ${code}); log ${logFile}:\n${tail}`));
    });
  });
}

/** Starts a long-running command (own process group) and waits until `ready()` holds. */
async function serve(
  command: string,
  cwd: string,
  logName: string,
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const logFile = join(WORK, `${logName}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  out.write(`$ ${command}\n`);
  const child = spawn('bash', ['-c', `exec ${command}`], {
    cwd,
    env: { ...process.env, PATH, ...env },
    detached: true,
  });
  children.set(logName, child);
  let tail = '';
  let exited: number | null | undefined;
  const keep = (chunk: Buffer) => {
    out.write(chunk);
    tail = (tail + chunk.toString()).slice(-3000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code) => {
    exited = code;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== undefined)
      fail(`\`${command}\` exited (${exited}) while starting; log ${logFile}:\n${tail}`);
    if (await ready().catch(() => false)) return;
    await new Promise((wait) => setTimeout(wait, 300));
  }
  fail(`\`${command}\` was not ready within ${timeoutMs / 1000} s; log ${logFile}:\n${tail}`);
}

/** Stops one server started by serve() (its whole process group) and waits for it to exit. */
async function stopServer(name: string): Promise<void> {
  const child = children.get(name);
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const killed = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }, 10_000);
  await exited;
  clearTimeout(killed);
}

async function stopChildren(): Promise<void> {
  await Promise.all([...children.keys()].map((name) => stopServer(name)));
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!ok(value)) {
    if (Date.now() > deadline) fail(`${what}: still ${JSON.stringify(value)?.slice(0, 500)} after ${ms} ms`);
    await new Promise((wait) => setTimeout(wait, 250));
    value = await read();
  }
  return value;
}

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON of the stores' HTTP APIs; each use checks what it reads
type Json = any;

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

// ------------------------------------------------------------------------------------------- versions

function workspaceVersion(name: string): string {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function peerRange(folder: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', folder, 'package.json'), 'utf8'));
  const range = manifest.peerDependencies?.[name];
  if (!range) fail(`packages/${folder} has no peer dependency on ${name}`);
  return range;
}

/** The platform version to install: the workspace's, or the lowest/highest release in the peer range. */
function platformVersion(folder: string, name: string): string {
  if (platforms === 'installed') return workspaceVersion(name);
  const range = peerRange(folder, name);
  const view = spawnSync('npm', ['view', `${name}@${range}`, 'version', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, PATH },
  });
  if (view.status !== 0) fail(`npm view ${name}@${range} failed: ${view.stderr}`);
  const parsed = JSON.parse(view.stdout) as string | string[];
  const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => !v.includes('-'));
  if (versions.length === 0) fail(`no release of ${name} in ${range}`);
  const [first] = versions;
  return platforms === 'lowest' ? first! : versions[versions.length - 1]!;
}

/** The @medusajs/ui version a Medusa release's dashboard depends on. */
function medusaUi(medusaVersion: string): string {
  const view = spawnSync(
    'npm',
    ['view', `@medusajs/dashboard@${medusaVersion}`, 'dependencies.@medusajs/ui', '--json'],
    { encoding: 'utf8', env: { ...process.env, PATH } },
  );
  if (view.status !== 0) fail(`npm view @medusajs/dashboard@${medusaVersion} failed: ${view.stderr}`);
  return JSON.parse(view.stdout) as string;
}

// ------------------------------------------------------------------------------------------------ steps

async function pack(): Promise<Map<string, string>> {
  const into = join(WORK, 'tarballs');
  mkdirSync(into);
  const packed = spawnSync(
    'npm',
    [
      'pack',
      '--json',
      '--ignore-scripts',
      '--pack-destination',
      into,
      ...PACKAGES.flatMap((name) => ['--workspace', `packages/${name}`]),
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH } },
  );
  if (packed.status !== 0) fail(`npm pack failed: ${packed.stderr}`);
  const tarballs = new Map<string, string>();
  for (const entry of JSON.parse(packed.stdout) as { name: string; filename: string }[]) {
    tarballs.set(entry.name, join(into, entry.filename));
  }
  return tarballs;
}

/** The root's overrides (a registry quirk of this environment: see the root README's toolchain). */
function rootOverrides(): Record<string, string> {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).overrides ?? {};
}

async function startSandbox(snippets: Map<SnippetName, string>, tarballs: Map<string, string>) {
  const dir = join(WORK, 'sandbox');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sandbox-here', private: true }, null, 2));
  await step('sandbox: install (README)', async () => {
    for (const command of commands(snippets.get('sandbox-install')!)) {
      await run(withTarballs(command, tarballs), dir, 'sandbox-install');
    }
  });
  const start = commands(snippets.get('sandbox')!);
  if (start.length !== 1) fail('the "sandbox" snippet must be one command');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await step(`sandbox: \`${start[0]}\` (SANDBOX_PORT=${port})`, () =>
    serve(
      start[0]!,
      dir,
      'sandbox',
      { SANDBOX_PORT: String(port) },
      async () => (await fetch(`${url}/_sandbox/state`)).ok,
      60_000,
    ),
  );
  return { url, gatewayNo: '12345678', signKey: 'sandbox-sign-key' };
}

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

async function callbackDelivered(sandbox: Sandbox, orderNo: string): Promise<void> {
  await until(
    `the sandbox's callback for ${orderNo}`,
    async () => {
      const { body } = await json(`${sandbox.url}/_sandbox/callbacks`);
      const mine = (body as { orderNo: string; state: string; type: string }[]).filter(
        (delivery) => delivery.orderNo === orderNo,
      );
      return mine.map((delivery) => `${delivery.type}:${delivery.state}`);
    },
    (states) => states.some((state) => state.endsWith(':delivered')),
  );
}

// ---------------------------------------------------------------------------------------------- medusa

/** The fresh Medusa app's files and its npm install (the README's command). */
async function medusaSetup(snippets: Map<SnippetName, string>, tarballs: Map<string, string>) {
  const dir = join(WORK, 'medusa-app');
  mkdirSync(join(dir, 'src', 'scripts'), { recursive: true });
  const version = platformVersion('medusa-provider', '@medusajs/framework');
  // @medusajs/ui is whatever this Medusa pins (its dashboard and draft-order plugin take one exact
  // version): 4.2.4 for 2.21.0, 4.2.6 for 2.21.2. Any other fails Medusa's own plugins, not ours.
  const ui = platforms === 'installed' ? workspaceVersion('@medusajs/ui') : medusaUi(version);
  log(`medusa: @medusajs/* ${version}, @medusajs/ui ${ui}`);
  const dependencies: Record<string, string> = {};
  for (const name of ['admin-sdk', 'cli', 'framework', 'medusa', 'icons']) {
    dependencies[`@medusajs/${name}`] = version;
  }
  dependencies['@medusajs/ui'] = ui;
  const devDependencies = Object.fromEntries(
    ['@swc/core', 'ts-node', 'typescript', '@types/node'].map((name) => [name, workspaceVersion(name)]),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      { name: 'medusa-app', private: true, dependencies, devDependencies, overrides: rootOverrides() },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2021',
          module: 'Node16',
          moduleResolution: 'Node16',
          esModuleInterop: true,
          skipLibCheck: true,
          resolveJsonModule: true,
          jsx: 'react-jsx',
          outDir: './.medusa/server',
        },
        include: ['**/*'],
        exclude: ['node_modules', '.medusa'],
      },
      null,
      2,
    ),
  );
  const { imports, body } = splitImports(snippets.get('medusa-config')!);
  writeFileSync(
    join(dir, 'medusa-config.ts'),
    [
      "import { defineConfig, loadEnv } from '@medusajs/framework/utils';",
      imports,
      '',
      "loadEnv(process.env.NODE_ENV || 'development', process.cwd());",
      '',
      'module.exports = defineConfig({',
      '  projectConfig: {',
      '    databaseUrl: process.env.DATABASE_URL,',
      "    http: { storeCors: '*', adminCors: '*', authCors: '*', jwtSecret: 'install-test', cookieSecret: 'install-test' },",
      '  },',
      // The admin dashboard build is not part of this test (minutes of vite); the widget is tested in
      // apps/medusa-store.
      '  admin: { disable: true },',
      body,
      '});',
      '',
    ].join('\n'),
  );
  // Demo data (region with the three providers, product, shipping, publishable key, admin user): the
  // demo store's own seed script.
  copyFileSync(join(ROOT, 'apps/medusa-store/src/scripts/seed.ts'), join(dir, 'src', 'scripts', 'seed.ts'));

  await step('medusa: npm install (README)', async () => {
    for (const command of commands(snippets.get('medusa-install')!)) {
      await run(withTarballs(command, tarballs), dir, 'medusa-install');
    }
  });
  return dir;
}

/** Migrations, demo data, boot and one order. */
async function medusaRun(dir: string, snippets: Map<SnippetName, string>, sandbox: Sandbox) {
  const database = 'medusa_app';
  await postgres!.ensureDatabase(database);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    MEDUSA_DISABLE_TELEMETRY: 'true',
    DATABASE_URL: postgres!.url(database),
    GATEWAYKIT_GATEWAY_NO: sandbox.gatewayNo,
    GATEWAYKIT_SIGN_KEY: sandbox.signKey,
    GATEWAYKIT_BASE_URL: sandbox.url,
    MEDUSA_BACKEND_URL: url,
    STOREFRONT_RETURN_URL: 'http://storefront.test/checkout/return',
  };
  await step('medusa: migrations (README)', async () => {
    for (const command of commands(snippets.get('medusa-migrate')!)) await run(command, dir, 'medusa', env);
  });
  await step('medusa: seed (demo data)', () =>
    run('npx medusa exec ./src/scripts/seed.ts', dir, 'medusa', env),
  );
  await step('medusa: boot (npx medusa start)', () =>
    serve(
      `npx medusa start --port ${port}`,
      dir,
      'medusa',
      { ...env, PORT: String(port) },
      async () => (await fetch(`${url}/health`)).ok,
      180_000,
    ),
  );
  await step('medusa: hosted checkout order against the sandbox', () => medusaOrder(url, sandbox));
}

async function medusaOrder(url: string, sandbox: Sandbox): Promise<void> {
  const { body: auth } = await json(`${url}/auth/user/emailpass`, {
    method: 'POST',
    body: JSON.stringify({ email: 'admin@gatewaykit.test', password: 'supersecret' }),
  });
  const admin = { authorization: `Bearer ${auth.token}` };
  const { body: keys } = await json(`${url}/admin/api-keys?type=publishable`, { headers: admin });
  const key = keys.api_keys?.[0]?.token;
  if (!key) fail(`no publishable key: ${JSON.stringify(keys)}`);
  const store = async (method: string, path: string, body?: unknown) => {
    const response = await json(`${url}${path}`, {
      method,
      headers: { 'x-publishable-api-key': key },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300)
      fail(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const address = {
    first_name: 'Ada',
    last_name: 'Lovelace',
    address_1: '1 Test Street',
    city: 'Austin',
    country_code: 'us',
    province: 'us-tx',
    postal_code: '73301',
    phone: '5125550100',
  };
  const { regions } = await store('GET', '/store/regions');
  const region = regions.find((r: { name: string }) => r.name === 'Gatewaykit Demo');
  const { products } = await store('GET', `/store/products?region_id=${region.id}&fields=*variants`);
  const { cart } = await store('POST', '/store/carts', {
    region_id: region.id,
    email: 'builder@example.com',
    shipping_address: address,
    billing_address: address,
  });
  await store('POST', `/store/carts/${cart.id}/line-items`, {
    variant_id: products[0].variants[0].id,
    quantity: 1,
  });
  const { shipping_options } = await store('GET', `/store/shipping-options?cart_id=${cart.id}`);
  await store('POST', `/store/carts/${cart.id}/shipping-methods`, { option_id: shipping_options[0].id });
  const { payment_collection } = await store('POST', '/store/payment-collections', { cart_id: cart.id });
  const { payment_collection: withSession } = await store(
    'POST',
    `/store/payment-collections/${payment_collection.id}/payment-sessions`,
    { provider_id: 'pp_gatewaykit-hosted_gatewaykit', data: {} },
  );
  const session = withSession.payment_sessions[0];
  if (!session?.data?.redirectUrl) fail(`no redirectUrl in the session: ${JSON.stringify(session)}`);
  log(`medusa: session ${session.id} → the sandbox's hosted page`);
  const page = await submitSandboxPage(session.data.redirectUrl, 'success', TEST_CARD_NUMBERS.success);
  if (!page.location) fail(`the hosted page answered ${page.status} without a return`);
  const back = await fetch(page.location, { redirect: 'manual' });
  const storefront = back.headers.get('location') ?? '';
  if (back.status !== 303 || !storefront.includes('outcome=succeeded')) {
    fail(`the return answered ${back.status} → ${storefront}: ${await back.text()}`);
  }
  await callbackDelivered(sandbox, session.id);
  const completed = await json(`${url}/store/carts/${cart.id}/complete`, {
    method: 'POST',
    headers: { 'x-publishable-api-key': key },
  });
  const orderId = completed.body?.order?.id;
  if (completed.status !== 200 || !orderId) {
    fail(`complete answered ${completed.status}: ${JSON.stringify(completed.body)}`);
  }
  const order = await until(
    `order ${orderId} captured`,
    async () =>
      (await json(`${url}/admin/orders/${orderId}?fields=payment_status`, { headers: admin })).body.order,
    (value) => value?.payment_status === 'captured',
  );
  log(`medusa: order ${order.id} payment_status ${order.payment_status}`);
}

// --------------------------------------------------------------------------------------------- vendure

/** The fresh Vendure server's files and its npm install (the README's command). */
async function vendureSetup(snippets: Map<SnippetName, string>, tarballs: Map<string, string>) {
  const dir = join(WORK, 'vendure-server');
  mkdirSync(dir);
  const version = platformVersion('vendure-plugin', '@vendure/core');
  log(`vendure: @vendure/core ${version}`);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'vendure-server',
        private: true,
        dependencies: { '@vendure/core': version, pg: workspaceVersion('pg') },
        devDependencies: Object.fromEntries(
          ['tsx', 'typescript', '@types/node'].map((name) => [name, workspaceVersion(name)]),
        ),
        overrides: rootOverrides(),
      },
      null,
      2,
    ),
  );
  const { imports, body } = splitImports(snippets.get('vendure-config')!);
  writeFileSync(
    join(dir, 'vendure-config.ts'),
    [
      "import path from 'node:path';",
      "import { VendureConfig } from '@vendure/core';",
      imports,
      '',
      'export const config: VendureConfig = {',
      "  apiOptions: { port: Number(process.env.PORT), hostname: '127.0.0.1', adminApiPath: 'admin-api', shopApiPath: 'shop-api' },",
      "  authOptions: { tokenMethod: ['bearer', 'cookie'], requireVerification: false, cookieOptions: { secret: 'install-test' } },",
      '  dbConnectionOptions: {',
      "    type: 'postgres',",
      "    host: '127.0.0.1',",
      '    port: Number(process.env.DB_PORT),',
      "    username: 'postgres',",
      "    password: 'postgres',",
      "    database: 'vendure_server',",
      '    synchronize: false,',
      "    migrations: [path.join(__dirname, 'migrations/*.+(js|ts)')],",
      '    logging: false,',
      '  },',
      '  paymentOptions: { paymentMethodHandlers: [] },',
      '  schedulerOptions: { runTasksInWorkerOnly: false },',
      body,
      '};',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'migration.ts'), `${snippets.get('vendure-migration-script')!}\n`);
  // Zones, countries, tax, shipping and two products: the demo store's initial data and CSV.
  copyFileSync(join(ROOT, 'apps/vendure-store/src/initial-data.ts'), join(dir, 'initial-data.ts'));
  copyFileSync(join(ROOT, 'apps/vendure-store/data/products.csv'), join(dir, 'products.csv'));
  writeFileSync(
    join(dir, 'index.ts'),
    [
      "import fs from 'node:fs';",
      "import path from 'node:path';",
      "import { bootstrap, JobQueueService } from '@vendure/core';",
      "import { populate } from '@vendure/core/cli';",
      "import { initialData } from './initial-data';",
      "import { config } from './vendure-config';",
      '',
      'async function main() {',
      "  const marker = path.join(__dirname, '.populated');",
      '  const app = fs.existsSync(marker)',
      '    ? await bootstrap(config)',
      "    : await populate(() => bootstrap(config), initialData, path.join(__dirname, 'products.csv'));",
      "  fs.writeFileSync(marker, '');",
      '  await app.get(JobQueueService).start();',
      "  console.log('VENDURE_READY');",
      '}',
      'main().catch((error) => {',
      '  console.error(error);',
      '  process.exit(1);',
      '});',
      '',
    ].join('\n'),
  );
  await step('vendure: npm install (README)', async () => {
    for (const command of commands(snippets.get('vendure-install')!)) {
      await run(withTarballs(command, tarballs), dir, 'vendure-install');
    }
  });
  return dir;
}

/** Migrations (generated, then run), boot with demo data, a payment method and one order. */
async function vendureRun(dir: string, snippets: Map<SnippetName, string>, sandbox: Sandbox) {
  await postgres!.ensureDatabase('vendure_server');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    PORT: String(port),
    DB_PORT: String(postgres!.port),
    VENDURE_HOST: url,
    VENDURE_DISABLE_TELEMETRY: 'true',
  };
  await step('vendure: migrations (README: generate, then run)', async () => {
    for (const command of commands(snippets.get('vendure-migrate')!)) await run(command, dir, 'vendure', env);
  });
  await step('vendure: boot (bootstrap, demo data on first start)', () =>
    serve(
      'npx tsx index.ts',
      dir,
      'vendure',
      env,
      async () => {
        const response = await fetch(`${url}/shop-api`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ activeChannel { code } }' }),
        });
        return response.ok && readFileSync(join(WORK, 'vendure.log'), 'utf8').includes('VENDURE_READY');
      },
      240_000,
    ),
  );
  await step('vendure: hosted checkout order against the sandbox', () =>
    vendureOrder(
      url,
      snippets.get('vendure-payment-method')!,
      snippets.get('vendure-payment-method-variables')!,
      sandbox,
    ),
  );
}

async function vendureOrder(url: string, createMethod: string, variables: string, sandbox: Sandbox) {
  const admin = await loginAdmin(`${url}/admin-api`);
  // The README's mutation and variables, with the running sandbox's URL and merchant put in.
  const { input } = JSON.parse(variables) as {
    input: { code: string; handler: { arguments: { name: string; value: string }[] } };
  };
  const args = new Map(input.handler.arguments.map((arg) => [arg.name, arg.value]));
  if (args.get('environment') !== 'custom' || args.get('mode') !== 'hosted') {
    fail(`the README's payment method must be a hosted one on the sandbox (environment custom, mode hosted)`);
  }
  const own: Record<string, string> = {
    gatewayNo: sandbox.gatewayNo,
    signKey: sandbox.signKey,
    baseUrl: sandbox.url,
  };
  for (const arg of input.handler.arguments) arg.value = own[arg.name] ?? arg.value;
  const created = await admin.query<{ createPaymentMethod: { id: string; code: string } }>(createMethod, {
    input,
  });
  log(`vendure: payment method ${created.createPaymentMethod.code} created`);
  const shop = new GraphqlClient(`${url}/shop-api`);
  const { products } = await shop.query<{ products: { items: { variants: { id: string }[] }[] } }>(
    '{ products(options: { take: 1 }) { items { variants { id } } } }',
  );
  const added = await shop.query<{ addItemToOrder: { __typename: string; message?: string } }>(
    'mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 1) { __typename ... on ErrorResult { message } } }',
    { id: products.items[0]?.variants[0]?.id },
  );
  if (added.addItemToOrder.__typename !== 'Order') fail(`addItemToOrder: ${added.addItemToOrder.message}`);
  await shop.query(
    'mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { __typename } }',
    {
      input: { firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'builder@example.com' },
    },
  );
  await shop.query(
    'mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { __typename } }',
    {
      input: {
        fullName: 'Ada Lovelace',
        streetLine1: '1 Analytical Way',
        city: 'London',
        postalCode: 'N1 1AA',
        countryCode: 'GB',
      },
    },
  );
  const { eligibleShippingMethods } = await shop.query<{ eligibleShippingMethods: { id: string }[] }>(
    '{ eligibleShippingMethods { id } }',
  );
  await shop.query(
    'mutation ($ids: [ID!]!) { setOrderShippingMethod(shippingMethodId: $ids) { __typename } }',
    {
      ids: [eligibleShippingMethods[0]?.id],
    },
  );
  const { gatewaykitStartPayment: started } = await shop.query<{
    gatewaykitStartPayment: { __typename: string; url?: string; orderNo?: string; message?: string };
  }>(
    `mutation ($code: String!) { gatewaykitStartPayment(input: { paymentMethodCode: $code }) {
      __typename
      ... on GatewaykitPaymentRedirect { url orderNo }
      ... on GatewaykitPaymentError { errorCode message }
    } }`,
    { code: created.createPaymentMethod.code },
  );
  if (started.__typename !== 'GatewaykitPaymentRedirect' || !started.url || !started.orderNo) {
    fail(`gatewaykitStartPayment: ${JSON.stringify(started)}`);
  }
  log(`vendure: attempt ${started.orderNo} → the sandbox's hosted page`);
  const page = await submitSandboxPage(started.url, 'success', TEST_CARD_NUMBERS.success);
  if (!page.location) fail(`the hosted page answered ${page.status} without a return`);
  const back = await fetch(page.location, { redirect: 'manual' });
  const storefront = back.headers.get('location') ?? '';
  if (back.status >= 400 || !storefront.includes('payment=succeeded')) {
    fail(`the return answered ${back.status} → ${storefront}: ${await back.text()}`);
  }
  await callbackDelivered(sandbox, started.orderNo);
  const code = started.orderNo.replace(/-\d+$/, '');
  const order = await until(
    `order ${code} PaymentSettled`,
    async () =>
      (
        await admin.query<{ orders: { items: { code: string; state: string }[] } }>(
          'query ($code: String!) { orders(options: { filter: { code: { eq: $code } } }) { items { code state } } }',
          { code },
        )
      ).orders.items[0],
    (value) => value?.state === 'PaymentSettled',
  );
  log(`vendure: order ${order?.code} ${order?.state}`);
}

// ------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const node = spawnSync('node', ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, PATH },
  }).stdout.trim();
  log(`work folder ${WORK} (stores on node ${node}, platforms: ${platforms})`);
  const snippets = await step('README snippets', () => readSnippets());
  const tarballs = await step('npm pack (four packages)', () => pack());
  log([...tarballs.values()].map((file) => file.slice(WORK.length + 1)).join(', '));
  postgres = await step('embedded Postgres', async () =>
    startEmbeddedPostgres({ dataDir: join(WORK, 'pg'), port: await freePort() }),
  );
  // Both platforms at once, each from its install to its order (much of it waits on npm, the disk
  // and Postgres), each in its own folder, database and log.
  const sandbox = startSandbox(snippets, tarballs);
  await Promise.all([
    sandbox,
    only !== 'vendure' &&
      medusaSetup(snippets, tarballs)
        .then(async (dir) => medusaRun(dir, snippets, await sandbox))
        .then(() => stopServer('medusa')),
    only !== 'medusa' &&
      vendureSetup(snippets, tarballs)
        .then(async (dir) => vendureRun(dir, snippets, await sandbox))
        .then(() => stopServer('vendure')),
  ]);
}

main().then(
  async () => {
    await stopChildren();
    await postgres?.stop();
    if (process.env['INSTALL_TEST_KEEP'] !== '1') {
      // Half a gigabyte of node_modules: removed in the background, so the result is not kept waiting.
      spawn('rm', ['-rf', WORK], { detached: true, stdio: 'ignore' }).unref();
    }
    log(`ok in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    process.exit(0);
  },
  async (error: unknown) => {
    console.error(`[install-test] ✗ ${error instanceof Error ? error.message : String(error)}`);
    console.error(`[install-test] kept ${WORK} (logs: *.log)`);
    await stopChildren();
    await postgres?.stop().catch(() => {});
    process.exit(1);
  },
);
