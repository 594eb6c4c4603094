import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import type { MedusaContainer } from '@medusajs/framework/types';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { BUYER_CART_FIELDS, buyerFromCart, type CartForBuyer } from '../../lib/buyer-from-cart';
import { cartOfPaymentCollection } from '../../lib/cart-of-collection';
import { requesterOf } from '../../lib/session-chooser';
import { modeOfProvider } from '../../lib/session-input';
import { paymentCollectionIdOf } from './payment-session-route';

/**
 * A payment provider cannot read the cart, but the gateway needs the shopper's email, name and
 * addresses. For gatewaykit sessions this copies them from the cart into the session input data
 * (replacing anything the storefront sent under `buyer`), plus the shopper's IP.
 *
 * A cart of a registered customer gets a gatewaykit session only from that customer: the session's
 * chooser is whoever creates it (lib/session-chooser.ts), so anyone else holding the cart id (another
 * customer, or a guest) would otherwise make it theirs and lock its owner out of their own cart.
 */
export async function addBuyerToSessionData(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  const body = (req.body ?? {}) as { provider_id?: unknown; data?: Record<string, unknown> };
  if (typeof body.provider_id !== 'string' || !modeOfProvider(body.provider_id)) return next();
  try {
    const cart = await cartOfPaymentCollection<CartForBuyer & { customer_id?: string | null }>(
      req.scope,
      paymentCollectionIdOf(req),
      [...BUYER_CART_FIELDS, 'customer_id'],
    );
    const owner = await registeredCustomer(req.scope, cart?.customer_id);
    if (owner && owner !== requesterOf(req)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        'This cart belongs to a registered customer: only that customer, logged in, can choose its payment',
      );
    }
    const buyer = cart ? buyerFromCart(cart, req.ip) : undefined;
    body.data = { ...(body.data ?? {}), buyer };
    req.body = body;
    next();
  } catch (error) {
    next(error);
  }
}

/** The cart's customer when it has an account; undefined for a guest's cart (Medusa's guest customers too). */
async function registeredCustomer(
  scope: MedusaContainer,
  customerId: string | null | undefined,
): Promise<string | undefined> {
  if (!customerId) return undefined;
  const [customer] = await scope
    .resolve(Modules.CUSTOMER)
    .listCustomers({ id: customerId }, { select: ['id', 'has_account'] });
  return customer?.has_account ? customer.id : undefined;
}
