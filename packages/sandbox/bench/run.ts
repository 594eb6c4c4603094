/**
 * `npm run bench`: signed-request throughput of the sandbox (customers.retrieve, confirmCharge) vs a
 * bare node:http server answering a fixed JSON body, measured in one run with the same load
 * generator and the same signing work per request; then resident memory after 100k customers.
 * Servers run in child processes so the load generator does not share their event loop.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { signRequest } from '@gatewaykit/core';
import { Pool } from 'undici';
import { TEST_CARD_NUMBERS } from '../src/index.js';

const DURATION_MS = Number(process.env['BENCH_DURATION_MS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 11);
const CONCURRENCY = 32;
const CUSTOMERS = Number(process.env['BENCH_CUSTOMERS'] ?? 100_000);
const GATEWAY_NO = '12345678';
const SIGN_KEY = 'sandbox-sign-key';

interface Child {
  process: ChildProcess;
  url: string;
}

function startChild(kind: 'bare' | 'sandbox'): Promise<Child> {
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [kind], {
    // BENCH_PROFILE=1 writes a CPU profile of each server child to ./bench-profiles for analysis.
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(process.env['BENCH_PROFILE'] ? ['--cpu-prof', '--cpu-prof-dir=bench-profiles'] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ process: child, url: (message as { url: string }).url }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

function ask(child: Child, what: 'rss' | 'cpu'): Promise<number> {
  return new Promise((resolve) => {
    child.process.once('message', (message) => resolve((message as Record<string, number>)[what] ?? 0));
    child.process.send(what);
  });
}

const rssOf = (child: Child) => ask(child, 'rss');

interface Measured {
  rps: number;
  /** Server CPU time (user + system) per request: unlike req/s, not skewed by other load on the machine. */
  cpuMicros: number;
}

async function measure(child: Child, next: () => Call, expectSuccess: boolean): Promise<Measured> {
  const before = await ask(child, 'cpu');
  const { rps, count } = await throughput(child.url, next, expectSuccess);
  const after = await ask(child, 'cpu');
  return { rps, cpuMicros: (after - before) / count };
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  pathParams?: Record<string, string>;
  body?: string;
}

function signed(call: Call) {
  const requestId = randomUUID();
  const requestTime = String(Date.now());
  return {
    method: call.method,
    path: `/V2022-03${call.path}`,
    body: call.body,
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      'gateway-no': GATEWAY_NO,
      'request-id': requestId,
      'request-time': requestTime,
      'sign-info': signRequest({
        signKey: SIGN_KEY,
        gatewayNo: GATEWAY_NO,
        requestId,
        requestTime,
        pathParams: call.pathParams,
        body: call.body,
      }),
    },
  };
}

/** Requests per second over DURATION_MS with CONCURRENCY loops; counts only success envelopes. */
async function throughput(
  url: string,
  next: () => Call,
  expectSuccess: boolean,
  durationMs = DURATION_MS,
): Promise<{ rps: number; count: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  let done = 0;
  let failed = 0;
  const deadline = Date.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const response = await pool.request(signed(next()));
        const text = await response.body.text();
        if (!expectSuccess || text.startsWith('{"code":"00000"')) done++;
        else failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  if (failed > 0) throw new Error(`${failed} requests did not succeed`);
  return { rps: done / seconds, count: done };
}

let sequence = 0;
const billingDetail = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phone: '+4420',
  address: { line1: '12 Row', city: 'London', country: 'GB' },
};
const testCard = {
  cardNo: TEST_CARD_NUMBERS.success,
  cardExpireMonth: '12',
  cardExpireYear: '2030',
  cardSecurityCode: '123',
};

/** A charge as the platform plugins send it; `payWith` is the raw card or a stored method. */
function chargeCall(payWith: Record<string, unknown>): Call {
  sequence++;
  return {
    method: 'POST',
    path: '/confirmCharge',
    body: JSON.stringify({
      orderNo: `BENCH-${process.pid}-${sequence}`,
      orderAmount: '10.00',
      orderCurrency: 'USD',
      customerIp: '203.0.113.1',
      returnUrl: 'https://shop.example/return',
      webSite: 'https://shop.example',
      ...payWith,
    }),
  };
}

const rawCardCharge = (): Call => chargeCall({ customerPaymentMethod: { billingDetail, card: testCard } });

/** A stored card of a customer, created through the API like a plugin's "save card" step. */
async function storedMethod(url: string, customerId: string): Promise<string> {
  const pool = new Pool(url);
  const response = await pool.request(
    signed({
      method: 'POST',
      path: '/payment_methods',
      body: JSON.stringify({ billingDetail, card: testCard, customerId }),
    }),
  );
  const envelope = (await response.body.json()) as {
    code: string;
    data: { customerPaymentMethodId: string };
  };
  await pool.close();
  if (envelope.code !== '00000') throw new Error(`create payment method failed: ${envelope.code}`);
  return envelope.data.customerPaymentMethodId;
}

async function createCustomers(url: string, count: number): Promise<string> {
  const pool = new Pool(url, { connections: 64 });
  let next = 0;
  let firstId = '';
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        next++;
        const response = await pool.request(
          signed({
            method: 'POST',
            path: '/customers',
            body: `{"email":"c${next}@example.com","firstName":"C${next}"}`,
          }),
        );
        const envelope = (await response.body.json()) as { code: string; data: { customerId: string } };
        if (envelope.code !== '00000') throw new Error(`create customer failed: ${envelope.code}`);
        firstId ||= envelope.data.customerId;
      }
    }),
  );
  await pool.close();
  return firstId;
}

async function main(): Promise<void> {
  const bare = await startChild('bare');
  const sandbox = await startChild('sandbox');
  try {
    const customerId = await createCustomers(sandbox.url, 1);
    const customerPaymentMethodId = await storedMethod(sandbox.url, customerId);
    const storedCharge = (): Call => chargeCall({ customerId, customerPaymentMethodId });
    const retrieve = (): Call => ({
      method: 'GET',
      path: `/customers/${customerId}`,
      pathParams: { customerId },
    });

    // Warm both servers up on every measured path before measuring: a path's first run would
    // otherwise pay for its JIT compilation inside a measured round.
    for (const next of [retrieve, rawCardCharge, storedCharge]) {
      await throughput(bare.url, next, false, 1000);
      await throughput(sandbox.url, next, true, 1000);
    }

    // Interleaved rounds (bare and sandbox in alternating order), medians of each: the machine's
    // other load hits both sides alike.
    const results = new Map<string, Measured[]>();
    const record = async (key: string, child: Child, next: () => Call, expectSuccess: boolean) => {
      results.set(key, [...(results.get(key) ?? []), await measure(child, next, expectSuccess)]);
    };
    for (let round = 0; round < ROUNDS; round++) {
      const pairs: [string, Child, () => Call, boolean][] = [
        ['bare retrieve', bare, retrieve, false],
        ['sandbox retrieve', sandbox, retrieve, true],
        ['bare charge', bare, rawCardCharge, false],
        ['sandbox charge', sandbox, rawCardCharge, true],
        ['bare stored', bare, storedCharge, false],
        ['sandbox stored', sandbox, storedCharge, true],
      ];
      if (round % 2 === 1) pairs.reverse();
      for (const [key, child, next, expectSuccess] of pairs) await record(key, child, next, expectSuccess);
    }
    const medianOf = (key: string): Measured => {
      const values = results.get(key) ?? [];
      const middle = (pick: (m: Measured) => number) =>
        values.map(pick).sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      return { rps: middle((m) => m.rps), cpuMicros: middle((m) => m.cpuMicros) };
    };
    const bareRetrieve = medianOf('bare retrieve');
    const sandboxRetrieve = medianOf('sandbox retrieve');
    const bareCharge = medianOf('bare charge');
    const sandboxCharge = medianOf('sandbox charge');
    const bareStored = medianOf('bare stored');
    const sandboxStored = medianOf('sandbox stored');

    // Each round's own ratio too: the machine's speed drifts between rounds.
    const perRound = (baseKey: string, key: string) =>
      (results.get(key) ?? []).map((m, round) =>
        (m.rps / (results.get(baseKey)?.[round]?.rps ?? 1)).toFixed(2),
      );
    const row = (name: string, base: Measured, value: Measured, rounds: string[]) =>
      [
        `${name.padEnd(19)} bare ${base.rps.toFixed(0).padStart(6)} req/s  sandbox ${value.rps.toFixed(0).padStart(6)} req/s`,
        `ratio ${(value.rps / base.rps).toFixed(2)}× (per round ${rounds.join(' ')}; goal ≥ 0.50×)`,
        `| server CPU/request bare ${base.cpuMicros.toFixed(0)} µs, sandbox ${value.cpuMicros.toFixed(0)} µs`,
        `(capacity ratio ${(base.cpuMicros / value.cpuMicros).toFixed(2)}×)`,
      ].join('  ');
    console.log(
      `signed-request throughput (${DURATION_MS} ms each, ${CONCURRENCY} concurrent, one load generator, medians of ${ROUNDS} interleaved rounds):`,
    );
    console.log(
      row('customers.retrieve', bareRetrieve, sandboxRetrieve, perRound('bare retrieve', 'sandbox retrieve')),
    );
    console.log(
      row('confirmCharge card', bareCharge, sandboxCharge, perRound('bare charge', 'sandbox charge')),
    );
    console.log(
      row('confirmCharge pm_', bareStored, sandboxStored, perRound('bare stored', 'sandbox stored')),
    );
    console.log(
      '  (card: raw card data + billing details, as a one-off card charge; pm_: a stored method, as a saved-card charge)',
    );
  } finally {
    bare.process.kill();
    sandbox.process.kill();
  }

  const fresh = await startChild('sandbox');
  try {
    const before = await rssOf(fresh);
    const started = performance.now();
    await createCustomers(fresh.url, CUSTOMERS);
    const seconds = (performance.now() - started) / 1000;
    const after = await rssOf(fresh);
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    console.log(
      `resident memory: ${mb(before)} at start, ${mb(after)} after creating ${CUSTOMERS} customers (${(CUSTOMERS / seconds).toFixed(0)} creates/s)`,
    );
  } finally {
    fresh.process.kill();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
