import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** How many requests each target received, in the order of `targets`. */
  readonly counts: number[];
  close(): Promise<void>;
}

/**
 * A load balancer for tests: each request goes to the next target in turn (method, path, headers and
 * body unchanged; `x-forwarded-for` added). A target that refuses the connection gets a 502, like a real
 * balancer before its health check notices — tests that kill an instance see exactly that.
 */
export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error('startRoundRobinProxy needs at least one target');
  const counts = targets.map(() => 0);
  let next = 0;
  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const index = next;
    next = (next + 1) % targets.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = new URL(incoming.url ?? '/', targets[index]);
    const upstream = httpRequest(
      target,
      {
        method: incoming.method,
        headers: {
          ...incoming.headers,
          host: target.host,
          'x-forwarded-for': incoming.socket.remoteAddress ?? '127.0.0.1',
        },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error) => {
      if (outgoing.headersSent) return outgoing.destroy();
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`round-robin proxy: ${targets[index]} failed: ${error.message}`);
    });
    incoming.pipe(upstream);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
