import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';
import { buyerChangedSince } from '../../lib/buyer-from-cart';
import { isCartCompleted, sessionsOfCart } from '../../lib/cart-of-collection';
import { describeMoney, openCart, sameMoney } from '../../lib/cart-total';
import { underCartGuard } from '../../lib/hold-until-answered';
import { chargeStateOf } from '../../lib/open-charges';
import {
  RETURNED_PAYMENT_FIELDS,
  RETURNED_PAYMENT_RELATIONS,
  type SessionPayment,
  whyPaymentReturned,
} from '../../lib/returned-payment';
import { type ChosenSession, requesterOf, whyNotTheChooser } from '../../lib/session-chooser';
import { readSessionData } from '../../lib/session-data';

type CompletedSession = SessionPayment & ChosenSession & { id: string };

/**
 * `POST /store/carts/:id/complete` of an open cart, refused with a clear 400 before Medusa runs:
 * - when the cart's payment was given back (Medusa's compensation refunds a captured payment when a
 *   completion fails after it; a merchant may refund or cancel): Medusa would place the order with that
 *   payment, since its authorization returns the existing payment without asking the provider. Goods
 *   for free (docs/SECURITY.md §6);
 * - when a logged-in customer created the cart's gatewaykit session and someone else completes it:
 *   the completion charges that customer's card (lib/session-chooser.ts, docs/SECURITY.md §2);
 * - when the cart's total or currency is no longer what its gatewaykit session asks for (the taxes
 *   route changes it without refreshing the session): the card would charge the old total for an
 *   order of the new one (lib/cart-total.ts). The storefront makes the payment session again;
 * - when a card session not yet charged copied another email, name, address or items than the cart
 *   has now (Medusa keeps the session while the total stays the same): the gateway would judge the
 *   charge, and the merchant defend a chargeback, on details the order does not have.
 * The cart's sessions are read once for these judgements; its total only when a gatewaykit session
 * has an amount to compare.
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
    const differs = await whyCartDiffersFromSession(req, cartId, sessions);
    if (differs) throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Cannot complete: ${differs}`);
    next();
  } catch (error) {
    next(error);
  }
}

/**
 * Why the cart does not match a gatewaykit session it would complete with: the first asking for another
 * amount, or a card session not yet charged whose copy of the buyer is no longer the cart's.
 */
async function whyCartDiffersFromSession(
  req: MedusaRequest,
  cartId: string,
  sessions: CompletedSession[],
): Promise<string | undefined> {
  const compared = sessions.flatMap((session) => {
    if (!session.provider_id.startsWith('pp_gatewaykit')) return [];
    const data = readSessionData(session.data ?? undefined);
    // A refused charge is never completed with; sessions from before the amount was kept are skipped.
    if (!data.amount || !data.currency || chargeStateOf(data) === 'failed') return [];
    const asked = { amount: data.amount, currency: data.currency };
    return [
      { id: session.id, asked, buyer: data.buyer, unsentCard: data.mode === 'card' && !data.attemptedAt },
    ];
  });
  if (compared.length === 0) return undefined;
  // One read of the cart: its total, and for a card still to be charged what its buyer is made of.
  const open = await openCart(
    req.scope,
    cartId,
    compared.some((session) => session.unsentCard),
  );
  if (!open) return undefined;
  for (const { id, asked, buyer, unsentCard } of compared) {
    if (!sameMoney(open.total, asked)) {
      return `the cart's total is now ${describeMoney(open.total)}, but its payment session (gateway orderNo ${id}) is for ${describeMoney(asked)}; update the cart (that refreshes its payment collection) and create the payment session again`;
    }
    if (unsentCard && buyerChangedSince(buyer, open.cart)) {
      return `the cart's email, name, addresses or items changed after its payment session (gateway orderNo ${id}) was made, and the card would be charged with the old ones; create the payment session again`;
    }
  }
  return undefined;
}
