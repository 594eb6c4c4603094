import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import type { BigNumberInput } from '@medusajs/framework/types';
import { MathBN, MedusaError, Modules } from '@medusajs/framework/utils';
import { cartIdOfCollection } from '../../lib/cart-of-collection';
import { modeOfProvider } from '../../lib/session-input';
import { paymentCollectionIdOf } from './payment-session-route';

/**
 * A gatewaykit session asks for its payment collection's amount (the page opens for it, the card is
 * charged it). Medusa refreshes that amount on every cart change but one: `POST /store/carts/:id/taxes`
 * changes the cart's total and leaves the collection at the old one, so a session made after it would
 * ask for the old total, and its payment could never become the order (lib/cart-total.ts). Before such
 * a session is made, the collection takes the cart's total, as Medusa's own refresh would set it. Runs
 * under the cart's lock (holdCartLock), the key Medusa's refresh takes, after refuseWhileChargeOpen:
 * no charge of the cart is open, so no session asks for the amount being replaced.
 */
export async function syncCollectionAmount(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  const body = (req.body ?? {}) as { provider_id?: unknown };
  if (typeof body.provider_id !== 'string' || !modeOfProvider(body.provider_id)) return next();
  try {
    const collectionId = paymentCollectionIdOf(req);
    const cartId = await cartIdOfCollection(req.scope, collectionId);
    if (!cartId) return next();
    const payments = req.scope.resolve(Modules.PAYMENT);
    const [[collection], [cart]] = await Promise.all([
      payments.listPaymentCollections({ id: collectionId }, { select: ['id', 'amount', 'currency_code'] }),
      req.scope
        .resolve(Modules.CART)
        .listCarts({ id: cartId }, { select: ['id', 'total', 'currency_code', 'completed_at'] }) as Promise<
        { total: BigNumberInput; currency_code: string; completed_at?: unknown }[]
      >,
    ]);
    if (!collection || !cart || cart.completed_at) return next();
    if (collection.currency_code.toLowerCase() !== cart.currency_code.toLowerCase()) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The cart's currency (${cart.currency_code}) is not its payment collection's (${collection.currency_code}); update the cart, then create the payment session again`,
      );
    }
    if (!MathBN.eq(collection.amount, cart.total)) {
      await payments.updatePaymentCollections(collectionId, { amount: cart.total });
    }
    next();
  } catch (error) {
    next(error);
  }
}
