import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { modeOfProvider, parseSessionInput } from '../../lib/session-input';

/**
 * The trust boundary of payment session creation (docs/SECURITY.md). Medusa writes the storefront's
 * `data` to the database before the provider sees it, so for gatewaykit providers it is parsed here,
 * against the provider's allow-list, and refused with a 400 naming the field before anything is stored.
 * Whether a `customerPaymentMethodId` may be charged for this shopper is the card provider's question
 * (core's resolveCardMethod, docs/card-element.md): it reads the method at the gateway, and a refusal
 * there removes the session Medusa inserted.
 */
export async function validateSessionInput(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  const body = (req.body ?? {}) as { provider_id?: unknown; data?: unknown };
  const providerId = typeof body.provider_id === 'string' ? body.provider_id : '';
  const mode = modeOfProvider(providerId);
  if (!mode) return next();
  try {
    parseSessionInput(mode, body.data);
    next();
  } catch (error) {
    next(error);
  }
}
