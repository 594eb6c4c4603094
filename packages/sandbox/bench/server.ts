/** Child process of the bench: serves either the sandbox or a bare node:http baseline, and reports its RSS. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox } from '../dist/index.js';

const BARE_BODY = JSON.stringify({
  code: '00000',
  message: 'success',
  data: {
    customerId: 'cus_1526753334131306496',
    email: 'a@b.co',
    firstName: 'A',
    lastName: 'B',
    phone: '',
    description: '',
    created: '2026-01-01 00:00:00',
  },
});

async function main(): Promise<void> {
  if (process.argv[2] === 'bare') {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, {
          'content-type': 'application/json;charset=UTF-8',
          'content-length': Buffer.byteLength(BARE_BODY),
        });
        response.end(BARE_BODY);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  } else {
    const sandbox = await startSandbox({ port: 0 });
    process.send?.({ url: sandbox.url, gatewayNo: sandbox.gatewayNo, signKey: sandbox.signKey });
  }
  // A normal exit on SIGTERM lets --cpu-prof write its profile; leave with the bench if it dies first.
  process.once('disconnect', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
  process.on('message', (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpu: usage.user + usage.system });
    }
    if (message === 'rss') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ rss: process.memoryUsage().rss });
    }
  });
}

void main();
