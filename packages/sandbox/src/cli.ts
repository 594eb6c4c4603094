#!/usr/bin/env node
/**
 * gatewaykit-sandbox CLI. Flags win over environment variables:
 *   --port / SANDBOX_PORT (8600)   --host / SANDBOX_HOST (127.0.0.1)
 *   --gateway-no + --sign-key / SANDBOX_GATEWAY_NO + SANDBOX_SIGN_KEY   (one merchant)
 *   --merchant no:key (repeatable) / SANDBOX_MERCHANTS="no:key,no:key"  (several)
 *   --callback-time-scale / SANDBOX_CALLBACK_TIME_SCALE (1 = the gateway's real schedule)
 *   --public-url / SANDBOX_PUBLIC_URL
 *   --allowed-host NAME (repeatable) / SANDBOX_ALLOWED_HOSTS="name,name": more names the sandbox
 *     answers under, gateway API included (see host-check.ts)
 */
import { parseArgs } from 'node:util';
import { TEST_CARDS } from './cards.js';
import { DEFAULT_MERCHANT, startSandbox } from './server.js';
import type { Merchant } from './signature-check.js';

function fail(message: string): never {
  console.error(`gatewaykit-sandbox: ${message}`);
  process.exit(2);
}

function parseMerchant(value: string): Merchant {
  const index = value.indexOf(':');
  if (index <= 0 || index === value.length - 1) fail(`--merchant expects gatewayNo:signKey, got "${value}"`);
  return { gatewayNo: value.slice(0, index), signKey: value.slice(index + 1) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'gateway-no': { type: 'string' },
      'sign-key': { type: 'string' },
      merchant: { type: 'string', multiple: true },
      'callback-time-scale': { type: 'string' },
      'public-url': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(
      'Usage: gatewaykit-sandbox [--port 8600] [--host 127.0.0.1] [--gateway-no 12345678 --sign-key KEY] [--merchant no:key ...] [--callback-time-scale 1] [--public-url URL] [--allowed-host NAME ...]',
    );
    return;
  }
  const env = process.env;
  const port = Number(values.port ?? env['SANDBOX_PORT'] ?? 8600);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port must be 0–65535');
  const merchants: Merchant[] = [];
  const gatewayNo = values['gateway-no'] ?? env['SANDBOX_GATEWAY_NO'];
  const signKey = values['sign-key'] ?? env['SANDBOX_SIGN_KEY'];
  if (gatewayNo || signKey) {
    merchants.push({
      gatewayNo: gatewayNo ?? DEFAULT_MERCHANT.gatewayNo,
      signKey: signKey ?? DEFAULT_MERCHANT.signKey,
    });
  }
  for (const entry of values.merchant ?? []) merchants.push(parseMerchant(entry));
  for (const entry of (env['SANDBOX_MERCHANTS'] ?? '').split(',').filter(Boolean))
    merchants.push(parseMerchant(entry.trim()));
  const scale = Number(values['callback-time-scale'] ?? env['SANDBOX_CALLBACK_TIME_SCALE'] ?? 1);
  if (!(scale > 0)) fail('--callback-time-scale must be a positive number');

  const host = values.host ?? env['SANDBOX_HOST'] ?? '127.0.0.1';
  const sandbox = await startSandbox({
    port,
    host,
    merchants: merchants.length > 0 ? merchants : [DEFAULT_MERCHANT],
    callbackTimeScale: scale,
    publicUrl: values['public-url'] ?? env['SANDBOX_PUBLIC_URL'],
    allowedHosts: [
      ...(values['allowed-host'] ?? []),
      ...(env['SANDBOX_ALLOWED_HOSTS'] ?? '').split(',').filter(Boolean),
    ],
  });

  const lines = [
    `gatewaykit sandbox listening on ${sandbox.url}`,
    `  API base URL (core baseUrl): ${sandbox.url}   → ${sandbox.apiUrl}/...`,
    `  dashboard: ${sandbox.url}/   control API: ${sandbox.url}/_sandbox/`,
    '  merchants (gateway-no / sign key):',
    ...sandbox.merchants.map((merchant) => `    ${merchant.gatewayNo} / ${merchant.signKey}`),
    `  callback schedule time scale: ${scale}`,
    '  test cards:',
    ...TEST_CARDS.map((card) => `    ${card.cardNo}  ${card.outcome}`),
  ];
  if (!isLoopback(host)) {
    // The sandbox approves any card and its control API has no login: it is for a QA network only.
    lines.unshift(
      `WARNING: listening on ${host}, not only on this machine. Whoever reaches it can approve any card (no money moves), read the request log and drive the control API (/_sandbox/), which has no authentication. Keep it on a private QA network; never point a live store at it.`,
    );
  }
  console.log(lines.join('\n'));

  const stop = () => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));

/** Whether `host` is this machine only (the default): anything else may be reached from elsewhere. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
