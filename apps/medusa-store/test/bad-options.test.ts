import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@gatewaykit/cluster-testing';
import { describe, expect, inject, it } from 'vitest';
import { APP_DIR, startMedusa } from '../scripts/medusa-cli';

async function startWith(env: Record<string, string>): Promise<string> {
  const port = await freePort();
  const logFile = join(inject('dataDir'), `bad-options-${port}.log`);
  const appEnv = {
    ...process.env,
    MEDUSA_DISABLE_TELEMETRY: 'true',
    DATABASE_URL: inject('databaseUrl'),
    GATEWAYKIT_BASE_URL: inject('sandboxUrl'),
    ...env,
  };
  try {
    const server = await startMedusa(port, appEnv, logFile);
    await server.stop();
    return 'started';
  } catch (error) {
    return String(error);
  }
}

describe('provider options', () => {
  it('the app refuses to start with a bad sign key, naming the option', async () => {
    const result = await startWith({ GATEWAYKIT_SIGN_KEY: 'short' });
    expect(result).not.toBe('started');
    expect(result).toContain('invalid option "signKey"');
  });

  it('the app refuses to start with a malformed storefront return URL, naming the option', async () => {
    const result = await startWith({ STOREFRONT_RETURN_URL: 'not a url' });
    expect(result).toContain('invalid option "storefrontReturnUrl"');
  });

  it('a production start without its secrets is refused, naming the variable; the demo defaults are public', async () => {
    const unset = { GATEWAYKIT_SIGN_KEY: '', JWT_SECRET: '', COOKIE_SECRET: '' };
    const result = await startWith({ ...unset, NODE_ENV: 'production' });
    expect(result).not.toBe('started');
    expect(result).toContain('must be set in production: the demo default is public');
  });

  it("attack: a production start on the seeded admin's public demo password is refused, naming it", async () => {
    const secrets = {
      GATEWAYKIT_SIGN_KEY: 'a-long-production-key',
      JWT_SECRET: 'j'.repeat(32),
      COOKIE_SECRET: 'c'.repeat(32),
    };
    const result = await startWith({ ...secrets, MEDUSA_ADMIN_PASSWORD: '', NODE_ENV: 'production' });
    expect(result).not.toBe('started');
    expect(result).toContain('MEDUSA_ADMIN_PASSWORD must be set in production');
  });
});

/** Loads medusa-config.ts alone, in a child process (no database, no server): 'loaded', or its error output. */
function loadConfig(env: Record<string, string>): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'medusa-config.ts'], {
    cwd: APP_DIR,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return result.status === 0 ? 'loaded' : result.stderr;
}

describe('the config of a production start', () => {
  const production = {
    NODE_ENV: 'production',
    GATEWAYKIT_SIGN_KEY: 'a-long-production-key',
    JWT_SECRET: 'j'.repeat(32),
    COOKIE_SECRET: 'c'.repeat(32),
    MEDUSA_ADMIN_PASSWORD: 'a-long-admin-password',
    GATEWAYKIT_SECOND_GATEWAY_NO: '',
    GATEWAYKIT_BENCH_BASELINES: '',
  };

  it('attack: the benchmark-only provider (captured, with no money) is refused in production, naming its switch', () => {
    expect(loadConfig(production)).toBe('loaded');
    expect(loadConfig({ ...production, GATEWAYKIT_BENCH_BASELINES: 'true' })).toContain(
      'NODE_ENV=production: unset GATEWAYKIT_BENCH_BASELINES;',
    );
    // Outside production the benchmark still has it.
    expect(loadConfig({ NODE_ENV: 'development', GATEWAYKIT_BENCH_BASELINES: 'true' })).toBe('loaded');
  });
});
