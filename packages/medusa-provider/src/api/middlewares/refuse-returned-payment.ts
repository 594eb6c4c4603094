import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys, MedusaError } from '@medusajs/framework/utils';
import { RETURNED_PAYMENT_FIELDS, type SessionPayment, whyPaymentReturned } from '../../lib/returned-payment';

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
    const { data } = await req.scope.resolve(ContainerRegistrationKeys.QUERY).graph({
      entity: 'cart',
      fields: [
        'id',
        'completed_at',
        ...RETURNED_PAYMENT_FIELDS.map((field) => `payment_collection.payment_sessions.${field}`),
      ],
      filters: { id: req.params.id! },
    });
    const cart = data[0] as
      | { completed_at?: unknown; payment_collection?: { payment_sessions?: SessionPayment[] | null } | null }
      | undefined;
    // A completed cart answers its order again (Medusa's own idempotency); only an open one is checked.
    if (cart && !cart.completed_at) {
      for (const session of cart.payment_collection?.payment_sessions ?? []) {
        const returned = whyPaymentReturned(session);
        if (returned) {
          throw new MedusaError(
            MedusaError.Types.NOT_ALLOWED,
            `The payment for this cart ${returned} before an order was placed; start a new cart to pay again`,
          );
        }
      }
    }
    next();
  } catch (error) {
    next(error);
  }
}
