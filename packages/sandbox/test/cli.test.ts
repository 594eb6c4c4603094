/** The CLI as a user starts it: flags, several merchants, the printed banner, and a signed call. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GatewayClient } from '@gatewaykit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWithHost } from './helpers.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
});

function start(args: string[], env: Record<string, string> = {}): Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child?.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('test cards:') && out.includes('Secure challenge whose')) resolve(out);
    });
    child?.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child?.once('exit', (code) => reject(new Error(`CLI exited with ${code}: ${out}`)));
  });
}

describe('gatewaykit-sandbox CLI', () => {
  it('prints URL, merchants, keys and test cards, and serves every configured merchant', async () => {
    const banner = await start([
      '--port',
      '0',
      '--merchant',
      '11112222:key-one',
      '--merchant',
      '33334444:key-two',
    ]);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    expect(url).not.toBe('');
    expect(banner).toContain('11112222 / key-one');
    expect(banner).toContain('33334444 / key-two');
    expect(banner).toContain('4242424242424242');
    for (const [gatewayNo, signKey] of [
      ['11112222', 'key-one'],
      ['33334444', 'key-two'],
    ] as const) {
      const client = new GatewayClient({ gatewayNo, signKey, baseUrl: url });
      expect((await client.customers.create({ email: 'cli@example.com' })).customerId).toMatch(/^cus_/);
      await client.close();
    }
  });

  it('warns when it listens beyond this machine (its control API has no login), and not on loopback', async () => {
    const open = await start(['--port', '0', '--host', '0.0.0.0']);
    expect(open).toContain('WARNING: listening on 0.0.0.0, not only on this machine');
    child?.kill('SIGTERM');
    const local = await start(['--port', '0']);
    expect(local).not.toContain('WARNING');
  });

  it('reads the single merchant from environment variables', async () => {
    const banner = await start([], {
      SANDBOX_PORT: '0',
      SANDBOX_GATEWAY_NO: '55556666',
      SANDBOX_SIGN_KEY: 'env-key',
    });
    expect(banner).toContain('55556666 / env-key');
  });

  it('answers its browser-facing parts under the names given with --allowed-host and SANDBOX_ALLOWED_HOSTS', async () => {
    const banner = await start(['--port', '0', '--allowed-host', 'qa-box'], {
      SANDBOX_ALLOWED_HOSTS: 'shop.internal,other.internal',
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    for (const host of ['qa-box', 'shop.internal', 'other.internal'])
      expect((await sendWithHost(url, '/_sandbox/state', host)).status, host).toBe(200);
    expect((await sendWithHost(url, '/_sandbox/state', 'evil.example')).status).toBe(403);
  });

  it('refuses a malformed --merchant', async () => {
    await expect(start(['--port', '0', '--merchant', 'nokey'])).rejects.toThrow(/gatewayNo:signKey/);
  });
});
