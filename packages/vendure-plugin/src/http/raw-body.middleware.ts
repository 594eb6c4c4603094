import type { NextFunction, Request, Response } from 'express';

export type RequestWithRawBody = Request & { rawBody?: Buffer };

const MAX_CALLBACK_BYTES = 256 * 1024;

/**
 * Keeps the exact callback bytes: the signature covers the raw body, so it must be verified before
 * any JSON parser touches it. Registered with `beforeListen` ahead of Nest's own body parser.
 */
export function rawBodyMiddleware(req: RequestWithRawBody, res: Response, next: NextFunction): void {
  const chunks: Buffer[] = [];
  let size = 0;
  // Once refused, the request is answered: nothing more is buffered, passed on or answered again.
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
    // Marks the body as read so later parsers leave it alone.
    req.body = req.rawBody;
    (req as unknown as { _body: boolean })._body = true;
    next();
  });
  req.on('error', (error) => {
    if (!refused) next(error);
  });
}
