/** Small node:http helpers: raw body reading and the few reply shapes the sandbox uses. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies above this are refused; no gateway request comes near it. */
const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {}

/** The body exactly as received: signatures are checked over these bytes. */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError('request body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  response.end(html);
}

export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { location, 'content-length': 0 });
  response.end();
}

/** Form posts (hosted pages, dashboard buttons) or JSON (control API). */
export function parseBodyFields(request: IncomingMessage, raw: string): Record<string, unknown> {
  const type = String(request.headers['content-type'] ?? '');
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  if (raw.trim().length === 0) return {};
  const parsed: unknown = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new SyntaxError('expected a JSON object');
  return parsed as Record<string, unknown>;
}
