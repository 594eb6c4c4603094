import { handleCallback, sendInboundAnswer } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { inboundContext } from '../../../../lib/inbound-request';

/**
 * The gateway's callbackUrl: core verifies it with the account it names, records it in a session of
 * that account and decides the answer (docs/inbound.md); this route only translates.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const { answer } = await handleCallback({
    ...inboundContext(req),
    rawBody: req.rawBody,
    headers: req.headers,
  });
  sendInboundAnswer(res, answer);
}
