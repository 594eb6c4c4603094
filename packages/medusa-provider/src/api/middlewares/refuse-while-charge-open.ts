import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { sessionsOfCart } from '../../lib/cart-of-collection';
import { underCartGuard } from '../../lib/hold-until-answered';
import { firstCartHolder, firstOpenPage } from '../../lib/open-charges';
import { requesterOf, whyNotTheChooser } from '../../lib/session-chooser';
import { readSessionData } from '../../lib/session-data';
import { paymentCollectionIdOf } from './payment-session-route';

type Sessions = { id: string; provider_id: string; data?: Record<string, unknown> | null }[];

/**
 * While a gatewaykit charge of a cart may have taken money (sent, unknown, pending, or paid but not yet
 * completed), the cart cannot change and no other payment session can be created: Medusa would delete
 * that session, and its result could then reach no cart (docs/SECURITY.md). The provider refuses the
 * deletion anyway; this answers the storefront with a clear 400 instead of a failed workflow. Before
 * that, a cart whose session a logged-in customer created changes (or gets another payment session)
 * only by that customer's requests (lib/session-chooser.ts).
 *
 * `pageToo`: a change that leaves the payment session in place (Medusa's taxes route refreshes no
 * payment collection) is refused while a gateway page is open as well: the page asks for the old
 * total, and its payment would complete the cart at the new one (lib/cart-total.ts).
 */
export function refuseWhileChargeOpen(
  param: 'cart' | 'payment_collection',
  options: { pageToo?: boolean } = {},
) {
  return async (req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction): Promise<void> => {
    const judge = async () => {
      try {
        const id = param === 'cart' ? req.params.id! : paymentCollectionIdOf(req);
        const sessions = await sessionsOf(req, param, id);
        const holder = firstCartHolder(sessions);
        if (holder) {
          throw new MedusaError(
            MedusaError.Types.NOT_ALLOWED,
            readSessionData(holder.data ?? undefined).unpaidOrderCheck === 'due'
              ? `The last payment for this cart (gateway orderNo ${holder.id}) failed, and whether the cart's order was left unpaid is still being checked; the cart and its payment cannot change until then`
              : `A payment for this cart (gateway orderNo ${holder.id}) is still being confirmed by the gateway; the cart and its payment cannot change until its result arrives`,
          );
        }
        const page = options.pageToo ? firstOpenPage(sessions) : undefined;
        if (page) {
          throw new MedusaError(
            MedusaError.Types.NOT_ALLOWED,
            `A gateway page for this cart (gateway orderNo ${page}) is open for the cart's current total; pay there, or create a new payment session, before the taxes are recalculated`,
          );
        }
        // A new payment session replaces the cart's, which would drop the customer rule with it.
        const requesterId = requesterOf(req);
        for (const session of sessions) {
          const notChooser = whyNotTheChooser(session, requesterId);
          if (notChooser)
            throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Cannot change: ${notChooser}`);
        }
        next();
      } catch (error) {
        next(error);
      }
    };
    // A payment-session request already holds the cart's guard lock (holdCartLock); a cart change takes
    // it here, so the check and the change it lets through are one step for other guarded requests.
    const cartId = req.params.id;
    if (param === 'payment_collection' || typeof cartId !== 'string' || !cartId) return judge();
    await underCartGuard(req, res, next, cartId, judge);
  };
}

/**
 * The payment sessions of the cart's (or the named) payment collection, with the fields
 * `firstCartHolder` judges. These guards run on every cart change, for every provider: they read the
 * cart–collection link and the payment module, not a `query.graph` across the link
 * (lib/cart-of-collection.ts).
 */
async function sessionsOf(
  req: MedusaRequest,
  param: 'cart' | 'payment_collection',
  id: string,
): Promise<Sessions> {
  if (typeof id !== 'string' || !id) return [];
  const config = { select: ['id', 'provider_id', 'data'] };
  if (param === 'cart') return sessionsOfCart<Sessions[number]>(req.scope, id, config);
  return (await req.scope
    .resolve(Modules.PAYMENT)
    .listPaymentSessions({ payment_collection_id: id }, config)) as Sessions;
}
