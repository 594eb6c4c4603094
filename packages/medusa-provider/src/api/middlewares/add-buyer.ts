import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { BUYER_CART_FIELDS, buyerFromCart, type CartForBuyer } from '../../lib/buyer-from-cart';
import { cartOfPaymentCollection } from '../../lib/cart-of-collection';
import { modeOfProvider } from '../../lib/session-input';
import { paymentCollectionIdOf } from './payment-session-route';

/**
 * A payment provider cannot read the cart, but the gateway needs the shopper's email, name and
 * addresses. For gatewaykit sessions this copies them from the cart into the session input data
 * (replacing anything the storefront sent under `buyer`), plus the shopper's IP.
 */
export async function addBuyerToSessionData(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  const body = (req.body ?? {}) as { provider_id?: unknown; data?: Record<string, unknown> };
  if (typeof body.provider_id !== 'string' || !modeOfProvider(body.provider_id)) return next();
  try {
    const cart = await cartOfPaymentCollection<CartForBuyer>(
      req.scope,
      paymentCollectionIdOf(req),
      BUYER_CART_FIELDS,
    );
    const buyer = cart ? buyerFromCart(cart, req.ip) : undefined;
    body.data = { ...(body.data ?? {}), buyer };
    req.body = body;
    next();
  } catch (error) {
    next(error);
  }
}
