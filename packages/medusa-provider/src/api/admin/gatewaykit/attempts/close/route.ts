import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { closeAttemptInputOf, closeSessionAttempt } from '../../../../../lib/close-attempt-run';

/**
 * Closes a payment session the reconciliation left open for a person (admins only), once the merchant
 * portal shows no charge: `{ orderNo, note }`. The session ends failed with the note and its cart is
 * free again (docs/inbound.md#closing-an-attempt).
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const input = closeAttemptInputOf(req.body);
  res.status(200).json(await closeSessionAttempt(req.scope, input, req.auth_context.actor_id));
}
