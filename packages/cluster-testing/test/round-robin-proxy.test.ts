import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, type RoundRobinProxy, startRoundRobinProxy } from '../src/index.js';

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

  it('skips a target that refuses the connection (a killed instance), and answers 502 when all do', async () => {
    const alive = await target('alive');
    proxy = await startRoundRobinProxy([alive, 'http://127.0.0.1:1']);
    const names = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(proxy.url, { method: 'POST', body: `again-${i}` });
      expect(response.status).toBe(201);
      const answer = (await response.json()) as { name: string; body: string };
      expect(answer.body).toBe(`again-${i}`);
      names.push(answer.name);
    }
    expect(names).toEqual(['alive', 'alive', 'alive']);
    expect(proxy.counts).toEqual([3, 0]);
    await proxy.close();
    proxy = await startRoundRobinProxy(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    const dead = await fetch(proxy.url);
    expect(dead.status).toBe(502);
    expect(await dead.text()).toContain('ECONNREFUSED');
  });

  it('listens on the port it is given', async () => {
    const port = await freePort();
    proxy = await startRoundRobinProxy([await target('a')], { port });
    expect(proxy.port).toBe(port);
    expect(proxy.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(proxy.url)).status).toBe(201);
  });

  it('refuses to start without targets', async () => {
    await expect(startRoundRobinProxy([])).rejects.toThrow(/at least one target/);
  });
});
