import { handleCallback, sendInboundAnswer } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { inboundContext } from '../../../../lib/inbound-request';
import { keepCallbacksOn } from '../../../../lib/kept-callbacks';

/**
 * The gateway's callbackUrl: core verifies it with the account it names, records it in a session of
 * that account (or, for an account with `recordCallbacksInWorker`, keeps it on the event bus for the
 * worker: lib/kept-callbacks.ts) and decides the answer (docs/inbound.md); this route only translates.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const inbound = inboundContext(req);
  const keep = keepCallbacksOn(req.scope, inbound.accounts);
  const { answer } = await handleCallback({
    ...inbound,
    rawBody: req.rawBody,
    headers: req.headers,
    ...(keep ? { keep } : {}),
  });
  sendInboundAnswer(res, answer);
}
