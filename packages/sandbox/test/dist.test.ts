/** The published build (turbo builds before testing): CommonJS for Medusa/Vendure, ESM, and the bin. */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

const script = (load: string) => `
${load}
sb.startSandbox({ port: 0 }).then(async (s) => {
  const res = await fetch(s.url + '/V2022-03/customers', { method: 'POST', body: '{}' });
  console.log(JSON.stringify({ code: (await res.json()).code, cards: sb.TEST_CARDS.length }));
  await s.close();
});`;

describe('dist', () => {
  it('loads with require() and starts', async () => {
    const { stdout } = await run(process.execPath, [
      '-e',
      script(`const sb = require(${JSON.stringify(dist('index.cjs'))});`),
    ]);
    expect(JSON.parse(stdout)).toEqual({ code: 'L0001', cards: 5 });
  });

  it('loads with import and starts', async () => {
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      script(`const sb = await import(${JSON.stringify(dist('index.js'))});`),
    ]);
    expect(JSON.parse(stdout)).toEqual({ code: 'L0001', cards: 5 });
  });

  it('ships the card element: SDK, iframe page and its endpoint', async () => {
    const { stdout } = await run(process.execPath, [
      '-e',
      `const sb = require(${JSON.stringify(dist('index.cjs'))});
sb.startSandbox({ port: 0 }).then(async (s) => {
  const sdk = await fetch(s.url + '/static/v3/js/AsiabillPayment.min.js');
  const page = await fetch(s.url + '/static/v3/element/card.html');
  const refused = await sb.createElementPaymentMethod(s.url, 'st_none', { card: {} }).catch((e) => e.message);
  console.log(JSON.stringify({ sdk: (await sdk.text()).includes('AsiabillPay'), page: page.headers.get('content-type'), refused }));
  await s.close();
});`,
    ]);
    expect(JSON.parse(stdout)).toEqual({
      sdk: true,
      page: 'text/html; charset=utf-8',
      refused:
        'card element refused the payment method: param is null or incorrect: sessionToken is unknown or expired',
    });
  });

  it('ships the CLI with a shebang', () => {
    expect(readFileSync(dist('cli.js'), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });

  it('runs the CLI through the package bin (the committed launcher)', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const bin = fileURLToPath(new URL(`../${pkg.bin['gatewaykit-sandbox']}`, import.meta.url));
    const { stdout } = await run(process.execPath, [bin, '--help']);
    expect(stdout).toContain('Usage: gatewaykit-sandbox');
  });

  it('has the launcher name the build command when dist/ is missing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gatewaykit-sandbox-bin-'));
    try {
      mkdirSync(join(folder, 'bin'));
      const bin = join(folder, 'bin', 'gatewaykit-sandbox.cjs');
      copyFileSync(fileURLToPath(new URL('../bin/gatewaykit-sandbox.cjs', import.meta.url)), bin);
      const failure = await run(process.execPath, [bin, '--help']).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain('npm run build --workspace @gatewaykit/sandbox');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
