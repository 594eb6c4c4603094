import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { cartIdOfCollection } from '../../lib/cart-of-collection';
import { cartGuardKey, holdUntilAnswered } from '../../lib/hold-until-answered';
import { paymentCollectionIdOf } from './payment-session-route';

/**
 * Holds the cart's lock (the key Medusa's cart completion, cart updates and payment webhooks lock) for
 * the whole payment-session request (docs/SECURITY.md, exactly once). Without it a new session could
 * replace one whose charge a concurrent completion is just sending, and the cart would be charged twice.
 * The cart's guard lock comes first: a cart change or completion judged while this session did not
 * exist yet has finished before it is made (lib/hold-until-answered.ts).
 */
export async function holdCartLock(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  try {
    const collectionId = paymentCollectionIdOf(req);
    const cartId = await cartIdOfCollection(req.scope, collectionId);
    // Medusa's own workflow fails with a TypeError (a 500) on an unknown collection: answer it here.
    if (!cartId && !(await collectionExists(req, collectionId)))
      throw new MedusaError(MedusaError.Types.NOT_FOUND, 'No such payment collection');
    if (!cartId) return next();
    await holdUntilAnswered(req, res, [cartGuardKey(cartId), cartId], () => next());
  } catch (error) {
    next(error);
  }
}

async function collectionExists(req: MedusaRequest, collectionId: string): Promise<boolean> {
  const found = await req.scope
    .resolve(Modules.PAYMENT)
    .listPaymentCollections({ id: collectionId }, { select: ['id'] });
  return found.length > 0;
}
