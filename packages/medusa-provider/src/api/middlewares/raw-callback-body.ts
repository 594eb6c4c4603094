import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';

/** Far above any gateway callback (a few KB); larger bodies are refused before being buffered. */
const MAX_CALLBACK_BYTES = 256 * 1024;

/**
 * Keeps the callback's body as the exact bytes sent (its signature covers them) instead of Medusa's JSON
 * parser, which answers a malformed body itself with a 400 that echoes it. Core then answers every
 * unverifiable callback alike: 401 (docs/inbound.md).
 */
export function readRawCallbackBody(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_CALLBACK_BYTES && !refused) {
      refused = true;
      res.status(413).type('text/plain').send('callback too large');
      req.destroy();
      return;
    }
    if (!refused) chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    req.rawBody = Buffer.concat(chunks);
    next();
  });
  req.on('error', next);
}
