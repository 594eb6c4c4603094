import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';
import { isCartCompleted, sessionsOfCart } from '../../lib/cart-of-collection';
import {
  RETURNED_PAYMENT_FIELDS,
  RETURNED_PAYMENT_RELATIONS,
  type SessionPayment,
  whyPaymentReturned,
} from '../../lib/returned-payment';

/**
 * `POST /store/carts/:id/complete` of an open cart whose payment was given back (Medusa's compensation
 * refunds a captured payment when a completion fails after it; a merchant may refund or cancel): Medusa
 * would place the order with that payment, since its authorization returns the existing payment without
 * asking the provider. Goods for free; refused with a clear 400 (docs/SECURITY.md §6).
 */
export async function refuseReturnedPayment(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  try {
    const cartId = req.params.id!;
    // A completed cart answers its order again (Medusa's own idempotency); only an open one is checked.
    // Plain reads (cart module, link, payment module), not a `query.graph` across the link: this runs on
    // every completion, for every provider (lib/cart-of-collection.ts).
    const sessions =
      typeof cartId === 'string' && cartId && !(await isCartCompleted(req.scope, cartId))
        ? await sessionsOfCart<SessionPayment>(req.scope, cartId, {
            select: ['id', ...RETURNED_PAYMENT_FIELDS],
            relations: RETURNED_PAYMENT_RELATIONS,
          })
        : [];
    for (const session of sessions) {
      const returned = whyPaymentReturned(session);
      if (returned) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `The payment for this cart ${returned} before an order was placed; start a new cart to pay again`,
        );
      }
    }
    next();
  } catch (error) {
    next(error);
  }
}
