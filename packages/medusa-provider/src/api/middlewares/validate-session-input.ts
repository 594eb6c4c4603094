import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';
import { ownsSavedCard } from '../../lib/account-holder';
import { cartOfPaymentCollection } from '../../lib/cart-of-collection';
import { modeOfProvider, parseSessionInput } from '../../lib/session-input';
import { paymentCollectionIdOf } from './payment-session-route';

/**
 * The trust boundary of payment session creation (docs/SECURITY.md). Medusa writes the storefront's
 * `data` to the database before the provider sees it, so for gatewaykit providers it is parsed here,
 * against the provider's allow-list, and refused with a 400 naming the field before anything is stored.
 * A saved card id must be one of the cart customer's own cards: ids are not secret, and only an id the
 * gateway knows as such is exempt from the card-number scan (gateway ids are long digit strings).
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
    const input = parseSessionInput(mode, body.data);
    if (input.customerPaymentMethodId) {
      const owned = await ownsSavedCard(
        req.scope,
        (
          await cartOfPaymentCollection<{ customer_id?: string | null }>(
            req.scope,
            paymentCollectionIdOf(req),
            ['customer_id'],
          )
        )?.customer_id,
        providerId,
        input.customerPaymentMethodId,
      );
      if (!owned) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          "data.customerPaymentMethodId: not a saved card of this cart's logged-in customer",
        );
      }
    }
    next();
  } catch (error) {
    next(error);
  }
}
