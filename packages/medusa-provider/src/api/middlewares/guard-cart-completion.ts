import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';
import { isCartCompleted, sessionsOfCart } from '../../lib/cart-of-collection';
import { underCartGuard } from '../../lib/hold-until-answered';
import {
  RETURNED_PAYMENT_FIELDS,
  RETURNED_PAYMENT_RELATIONS,
  type SessionPayment,
  whyPaymentReturned,
} from '../../lib/returned-payment';
import { type ChosenSession, requesterOf, whyNotTheChooser } from '../../lib/session-chooser';

type CompletedSession = SessionPayment & ChosenSession;

/**
 * `POST /store/carts/:id/complete` of an open cart, refused with a clear 400 before Medusa runs:
 * - when the cart's payment was given back (Medusa's compensation refunds a captured payment when a
 *   completion fails after it; a merchant may refund or cancel): Medusa would place the order with that
 *   payment, since its authorization returns the existing payment without asking the provider. Goods
 *   for free (docs/SECURITY.md §6);
 * - when a logged-in customer created the cart's gatewaykit session and someone else completes it:
 *   the completion charges that customer's card (lib/session-chooser.ts, docs/SECURITY.md §2).
 * The cart's sessions are read once for both judgements.
 */
export async function guardCartCompletion(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  const cartId = req.params.id;
  if (typeof cartId !== 'string' || !cartId) return next();
  // The judgement and the completion it lets through hold the cart's guard lock: a customer's payment
  // session made meanwhile waits for them (lib/hold-until-answered.ts).
  await underCartGuard(req, res, next, cartId, () => judgeCompletion(req, cartId, next));
}

async function judgeCompletion(req: MedusaRequest, cartId: string, next: MedusaNextFunction): Promise<void> {
  try {
    // A completed cart answers its order again (Medusa's own idempotency); only an open one is checked.
    // Plain reads (cart module, link, payment module), not a `query.graph` across the link: this runs on
    // every completion, for every provider (lib/cart-of-collection.ts).
    const sessions = !(await isCartCompleted(req.scope, cartId))
      ? await sessionsOfCart<CompletedSession>(req.scope, cartId, {
          select: ['id', 'provider_id', 'data', ...RETURNED_PAYMENT_FIELDS],
          relations: RETURNED_PAYMENT_RELATIONS,
        })
      : [];
    const requesterId = requesterOf(req);
    for (const session of sessions) {
      const returned = whyPaymentReturned(session);
      if (returned) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `The payment for this cart ${returned} before an order was placed; start a new cart to pay again`,
        );
      }
      const notChooser = whyNotTheChooser(session, requesterId);
      if (notChooser) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Cannot complete: ${notChooser}`);
    }
    next();
  } catch (error) {
    next(error);
  }
}
