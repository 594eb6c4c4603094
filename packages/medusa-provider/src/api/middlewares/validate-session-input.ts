import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { modeOfProvider, parseSessionInput } from '../../lib/session-input';

/**
 * The trust boundary of payment session creation (docs/SECURITY.md). Medusa writes the storefront's
 * `data` to the database before the provider sees it, so for gatewaykit providers it is parsed here,
 * against the provider's allow-list, and refused with a 400 naming the field before anything is stored.
 */
export function validateSessionInput(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): void {
  const body = (req.body ?? {}) as { provider_id?: unknown; data?: unknown };
  const mode = typeof body.provider_id === 'string' ? modeOfProvider(body.provider_id) : undefined;
  if (!mode) return next();
  try {
    parseSessionInput(mode, body.data);
    next();
  } catch (error) {
    next(error);
  }
}
