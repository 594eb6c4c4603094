import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RoundRobinProxy, startRoundRobinProxy } from '../src/index.js';

const servers: Server[] = [];
let proxy: RoundRobinProxy | undefined;

/** A target that answers its own name, the method, the path and the body it received. */
async function target(name: string): Promise<string> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-target': name });
      response.end(
        JSON.stringify({
          name,
          method: request.method,
          url: request.url,
          body,
          auth: request.headers.authorization,
        }),
      );
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('startRoundRobinProxy', () => {
  it('sends each request to the next target in turn, unchanged', async () => {
    proxy = await startRoundRobinProxy([await target('a'), await target('b')]);
    const answers: Record<string, unknown>[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${proxy.url}/hooks/x?i=${i}`, {
        method: 'POST',
        headers: { authorization: 'Bearer t' },
        body: `body-${i}`,
      });
      expect(response.status).toBe(201);
      answers.push((await response.json()) as Record<string, unknown>);
    }
    expect(answers.map((answer) => answer.name)).toEqual(['a', 'b', 'a', 'b']);
    expect(answers[3]).toMatchObject({
      method: 'POST',
      url: '/hooks/x?i=3',
      body: 'body-3',
      auth: 'Bearer t',
    });
    expect(proxy.counts).toEqual([2, 2]);
  });

  it('answers 502 for a target that is gone, and keeps serving the others', async () => {
    const alive = await target('alive');
    proxy = await startRoundRobinProxy([alive, 'http://127.0.0.1:1']);
    expect((await fetch(proxy.url)).status).toBe(201);
    const dead = await fetch(proxy.url);
    expect(dead.status).toBe(502);
    expect(await dead.text()).toContain('127.0.0.1:1');
    expect((await fetch(proxy.url)).status).toBe(201);
  });

  it('refuses to start without targets', async () => {
    await expect(startRoundRobinProxy([])).rejects.toThrow(/at least one target/);
  });
});
