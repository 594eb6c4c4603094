import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { closeLostRefund, closeRefundInputOf } from '../../../../../lib/close-refund-run';

/**
 * Closes a gateway refund nothing settled (admins only), once the merchant portal shows how it ended:
 * `{ merTrackNo, made, note }` (docs/safety-rules.md#refund-intents).
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const input = closeRefundInputOf(req.body);
  res.status(200).json(await closeLostRefund(req.scope, input, req.auth_context.actor_id));
}
