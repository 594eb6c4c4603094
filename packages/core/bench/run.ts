/**
 * Core benchmarks (npm run bench). Prints figures and ratios against baselines measured in the same run;
 * nothing here asserts timing.
 *  1. Cost of validating + serializing + signing one confirmCharge request, vs signing alone.
 *  2. Throughput of GatewayClient against a local HTTP server (own process), vs a bare undici Pool sending
 *     the same charges (serialized per call, fixed header values: no signature, no validation).
 */

import { fork } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import {
  chargeResultSchema,
  confirmChargeRequestSchema,
  GatewayClient,
  redactText,
  safeParseFast,
  signRequest,
} from '../dist/index.js';

const charge = {
  orderNo: 'payses_01JBENCH',
  orderAmount: '129.90',
  orderCurrency: 'USD',
  customerIp: '203.0.113.7',
  returnUrl: 'https://shop.example/gatewaykit/return',
  callbackUrl: 'https://shop.example/gatewaykit/callback',
  webSite: 'shop.example',
  customerPaymentMethodId: 'pm_1526760521989763072',
  customerId: 'cus_1526753334131306496',
  goodsDetails: [{ goodsTitle: 'Shirt', goodsCount: '1', goodsPrice: '129.90' }],
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function timeEach(iterations: number, fn: () => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

function signingBench() {
  const head = {
    signKey: 'bench-key',
    gatewayNo: '12345678',
    requestId: 'B2C1E0F4-0000-4000-8000-000000000000',
    requestTime: Date.now(),
  };
  const body = JSON.stringify(charge);
  timeEach(5_000, () => signRequest({ ...head, body })); // warm-up
  const baseline = timeEach(20_000, () => createHmac('sha256', head.signKey).update(body).digest('hex'));
  // As the client does it: the schema's compiled fast form (safeParseFast), then serialize and sign.
  const full = timeEach(20_000, () =>
    signRequest({ ...head, body: JSON.stringify(safeParseFast(confirmChargeRequestSchema, charge).data) }),
  );
  const interpreted = timeEach(20_000, () =>
    signRequest({ ...head, body: JSON.stringify(confirmChargeRequestSchema.parse(charge)) }),
  );
  const p50 = percentile(full, 0.5);
  console.log('validate + serialize + sign confirmCharge:');
  console.log(
    `  p50 ${p50.toFixed(2)} µs   p99 ${percentile(full, 0.99).toFixed(2)} µs   (goal p50 ≤ 20 µs)`,
  );
  console.log(
    `  with zod's interpreted parse instead of the compiled form: p50 ${percentile(interpreted, 0.5).toFixed(2)} µs`,
  );
  console.log(
    `  bare HMAC baseline p50 ${percentile(baseline, 0.5).toFixed(2)} µs → ratio ${(p50 / percentile(baseline, 0.5)).toFixed(1)}×`,
  );
}

function redactionBench() {
  const card = { cardNo: '4242424242424242', cardExpireYear: '2030', cardSecurityCode: '123' };
  const withCard = JSON.stringify({ ...charge, customerPaymentMethod: { card } });
  const p50 = (body: string) =>
    percentile(
      timeEach(20_000, () => redactText(body)),
      0.5,
    ).toFixed(2);
  console.log(
    `redactText p50: charge body with a card ${p50(withCard)} µs, without ${p50(JSON.stringify(charge))} µs`,
  );
}

// Many short interleaved rounds: this kind of VM drifts in speed by tens of percent within seconds.
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 15);
const BARE = 'bare undici Pool (baseline)';
const FIXED = 'bare undici Pool, one fixed body';
const SIGNED = 'hand-signed undici Pool';
const VALIDATED = 'hand-signed + zod-validated undici';
const CLIENT = 'GatewayClient (validate+sign+parse)';

async function throughputBench() {
  const answer = JSON.stringify({
    code: '00000',
    message: 'success',
    data: { ...charge, tradeNo: 'T1', orderStatus: 'success' },
  });
  const server = fork(fileURLToPath(new URL('./echo-server.ts', import.meta.url)), [answer], {
    execArgv: ['--import', 'tsx'],
  });
  const port = await new Promise<number>((resolve) =>
    server.once('message', (m: { port: number }) => resolve(m.port)),
  );
  const origin = `http://127.0.0.1:${port}`;
  const total = Number(process.env['BENCH_CALLS'] ?? 3_000);
  const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
  const body = JSON.stringify(charge);

  // Client-process CPU per request (user + system): unlike req/s, not skewed by other load on the machine.
  const cpu = new Map<string, number[]>();
  async function run(label: string, once: (i: number) => Promise<unknown>): Promise<number> {
    let next = 0;
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await once(next++);
      }),
    );
    const perSecond = total / ((performance.now() - start) / 1000);
    const used = process.cpuUsage(cpuBefore);
    const micros = (used.user + used.system) / total;
    cpu.set(label, [...(cpu.get(label) ?? []), micros]);
    console.log(
      `  ${label.padEnd(36)} ${perSecond.toFixed(0).padStart(6)} req/s  ${micros.toFixed(1)} µs CPU/request`,
    );
    return perSecond;
  }

  const pool = new Pool(origin, { connections: concurrency, keepAliveTimeout: 10_000 });
  // Same wire bytes as the client sends (static header values), so the ratio is the cost of our code only.
  const headers = {
    'gateway-no': '12345678',
    'request-id': 'B2C1E0F4-0000-4000-8000-000000000000',
    'request-time': String(Date.now()),
    'sign-info': 'a'.repeat(64),
    'content-type': 'application/json;charset=UTF-8',
    accept: 'application/json',
  };
  /** What a bare undici Pool does for the same charge: serialize it, send it, read the answer. */
  const sendBare = async (requestBody: string) => {
    const res = await pool.request({
      origin,
      path: '/V2022-03/confirmCharge',
      method: 'POST',
      body: requestBody,
      headers,
    });
    JSON.parse(await res.body.text());
  };
  // The baseline of the goal: the same requests as the client's (each charge its own orderNo, so its
  // own body, built from the same object the client is given), minus what only the client does:
  // no signature (fixed header values), no validation.
  const bare = (i: number) => sendBare(JSON.stringify({ ...charge, orderNo: `payses_${i}` }));
  // For reference, the floor: one body string sent again and again (no per-call work at all).
  const fixed = () => sendBare(body);
  /** Sends one body with a fresh request-id, time and signature; returns the answer's text. */
  const sendSigned = async (requestBody: string): Promise<string> => {
    const requestId = randomUUID();
    const requestTime = String(Date.now());
    const signInfo = signRequest({
      signKey: 'bench-key',
      gatewayNo: '12345678',
      requestId,
      requestTime,
      body: requestBody,
    });
    const res = await pool.request({
      origin,
      path: '/V2022-03/confirmCharge',
      method: 'POST',
      body: requestBody,
      headers: { ...headers, 'request-id': requestId, 'request-time': requestTime, 'sign-info': signInfo },
    });
    return res.body.text();
  };
  // The minimum any correct client pays: a fresh request-id, time and signature per request, so the
  // requests are ones the gateway would accept (it refuses a repeated request-id).
  const signed = async (i: number) => {
    JSON.parse(await sendSigned(JSON.stringify({ ...charge, orderNo: `payses_${i}` })));
  };
  // The same work as the client, written plainly on Pool.request: validate the input, sign, send, validate
  // the answer. Shows what the validation itself costs, and what the client's own transport saves.
  const validated = async (i: number) => {
    const input = confirmChargeRequestSchema.parse({ ...charge, orderNo: `payses_${i}` });
    const answer = JSON.parse(await sendSigned(JSON.stringify(input))) as { data: unknown };
    chargeResultSchema.parse(answer.data);
  };
  const client = new GatewayClient({
    gatewayNo: '12345678',
    signKey: 'bench-key',
    baseUrl: origin,
    connections: concurrency,
  });
  const typed = (i: number) => client.charges.confirm({ ...charge, orderNo: `payses_${i}` });

  console.log(`throughput, ${total} confirmCharge calls, ${concurrency} concurrent, local HTTP server:`);
  await run('warm-up bare', bare);
  await run('warm-up client', typed);
  // Interleaved rounds, median of each: the machine's other load hits both sides alike.
  const baseline: number[] = [];
  const handSigned: number[] = [];
  const handValidated: number[] = [];
  const measured: number[] = [];
  const fixedBytes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    baseline.push(await run(BARE, bare));
    fixedBytes.push(await run(FIXED, fixed));
    handSigned.push(await run(SIGNED, signed));
    handValidated.push(await run(VALIDATED, validated));
    measured.push(await run(CLIENT, typed));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  // Headline: the median of each round's own ratio. The two runs of a round are seconds apart, so the
  // machine's drift between rounds cancels out; the ratio of overall medians is printed beside it.
  const ratioLine = (against: number[], label: string, goal = '') => {
    const perRound = measured.map((value, round) => value / against[round]!);
    console.log(
      `  ratio ${median(perRound).toFixed(2)}× of ${label} (median of ${ROUNDS} rounds: ${perRound.map((r) => r.toFixed(2)).join(' ')}; ratio of medians ${(median(measured) / median(against)).toFixed(2)}×)${goal}`,
    );
  };
  ratioLine(baseline, 'bare undici Pool sending the same charges (fixed headers)', '   (goal ≥ 0.85×)');
  ratioLine(fixedBytes, 'bare undici Pool sending one fixed body (the floor)');
  ratioLine(handSigned, 'hand-signed undici requests (fresh id + HMAC, no validation)');
  ratioLine(handValidated, "hand-signed + zod-validated undici requests (the client's work written plainly)");
  const bareCpu = median(cpu.get(BARE) ?? []);
  const fixedCpu = median(cpu.get(FIXED) ?? []);
  const clientCpu = median(cpu.get(CLIENT) ?? []);
  console.log(
    `  client-process CPU/request: bare ${bareCpu.toFixed(1)} µs (one fixed body ${fixedCpu.toFixed(1)} µs), GatewayClient ${clientCpu.toFixed(1)} µs (+${(clientCpu - bareCpu).toFixed(1)} µs)`,
  );
  await client.close();
  await pool.close();
  server.kill();
}

signingBench();
redactionBench();
await throughputBench();
