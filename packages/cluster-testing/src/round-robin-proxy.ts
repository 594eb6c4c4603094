import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  port: number;
  /** How many requests each target answered, in the order of `targets` (a live array). */
  readonly counts: number[];
  close(): Promise<void>;
}

/**
 * A load balancer for tests: each request goes to the next target in turn (method, path, headers and
 * body unchanged; `x-forwarded-for` added). A target that refuses the connection (a killed instance)
 * is skipped for that request, like a balancer's failed health check: a refused connection provably
 * never reached it. Any other failure, or every target refusing, is a 502.
 */
export async function startRoundRobinProxy(
  targets: readonly string[],
  options: { port?: number } = {},
): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error('startRoundRobinProxy needs at least one target');
  const counts = targets.map(() => 0);
  let next = 0;

  const send = (
    incoming: IncomingMessage,
    body: Buffer,
    outgoing: ServerResponse,
    first: number,
    tries: number,
  ) => {
    const index = (first + tries) % targets.length;
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
        counts[index] = (counts[index] ?? 0) + 1;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && tries + 1 < targets.length) {
        send(incoming, body, outgoing, first, tries + 1);
        return;
      }
      if (outgoing.headersSent) return outgoing.destroy();
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`round-robin proxy: ${targets[index]} failed: ${error.code ?? error.message}`);
    });
    upstream.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    // Buffered, so a request can be sent again to the next target when the first refuses.
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const first = next;
      next = (next + 1) % targets.length;
      send(incoming, Buffer.concat(chunks), outgoing, first, 0);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
