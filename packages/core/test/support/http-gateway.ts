/**
 * A tiny real HTTP server standing in for the gateway in transport tests: records every request
 * (raw body, headers) and answers with whatever the test's handler decides, including broken answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface TestGateway {
  url: string;
  requests: RecordedRequest[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export function envelope(
  response: ServerResponse,
  code: string,
  data: unknown,
  message = code === '00000' ? 'success' : 'error',
) {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ code, message, data }));
}

export async function startTestGateway(): Promise<TestGateway> {
  const requests: RecordedRequest[] = [];
  let handler: Handler = (_request, response) => envelope(response, '00000', null);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
