import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The demo Vendure store's own entry (apps/vendure-store/src/index.ts, built by its `build` script). */
export const VENDURE_ENTRY = fileURLToPath(new URL('../../vendure-store/dist/src/index.js', import.meta.url));

export interface RunningVendure {
  url: string;
  shopApi: string;
  adminApi: string;
  stop(): Promise<void>;
}

/**
 * Runs the demo Vendure store as a child process (it boots, populates a fresh sql.js file, ensures
 * the payment methods for the given gateway URL, then prints VENDURE_READY).
 */
export async function startVendure(options: {
  port: number;
  dbPath: string;
  gatewayBaseUrl: string;
  storefrontOrderUrl: string;
  logFile: string;
  /** The plugin's PCI opt-in (raw card numbers); off: cards only through the card element. */
  allowRawCardData?: boolean;
}): Promise<RunningVendure> {
  mkdirSync(dirname(options.dbPath), { recursive: true });
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, [VENDURE_ENTRY], {
    cwd: join(dirname(VENDURE_ENTRY), '..', '..'),
    env: {
      ...process.env,
      VENDURE_DISABLE_TELEMETRY: 'true',
      PORT: String(options.port),
      DB_PATH: options.dbPath,
      GATEWAY_BASE_URL: options.gatewayBaseUrl,
      STOREFRONT_ORDER_URL: options.storefrontOrderUrl,
      GATEWAYKIT_ALLOW_RAW_CARD_DATA: options.allowRawCardData ? 'true' : 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      output = (output + chunk.toString()).slice(-4000);
      if (output.includes('VENDURE_READY')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => reject(new Error(`Vendure exited (${code}) during startup:\n${output}`)));
  });
  const url = `http://127.0.0.1:${options.port}`;
  return {
    url,
    shopApi: `${url}/shop-api`,
    adminApi: `${url}/admin-api`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}
