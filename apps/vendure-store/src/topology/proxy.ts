import http from 'node:http';

export interface RoundRobinProxy {
  port: number;
  url: string;
  /** How many requests each upstream was given, in upstream order. */
  counts(): number[];
  close(): Promise<void>;
}

/**
 * A tiny round-robin HTTP proxy in front of the server instances (what a load balancer does). Each
 * request goes to the next upstream; an upstream that refuses the connection (a killed instance) is
 * skipped for that request, like a load balancer's failed health check. Nothing is kept per client.
 */
export async function startRoundRobinProxy(upstreams: string[], port = 0): Promise<RoundRobinProxy> {
  const targets = upstreams.map((u) => new URL(u));
  const counts = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const first = next++ % targets.length;
      const attempt = (tries: number) => {
        const index = (first + tries) % targets.length;
        const target = targets[index] as URL;
        const upstream = http.request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
          },
          (answer) => {
            counts[index] = (counts[index] ?? 0) + 1;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          // Only a refused connection provably never reached the instance: try the next one.
          if (error.code === 'ECONNREFUSED' && tries + 1 < targets.length) return attempt(tries + 1);
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`upstream ${target.host}: ${error.code ?? error.message}`);
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    counts: () => [...counts],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
