import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { cartIdOfCollection } from '../../lib/cart-of-collection';
import { paymentCollectionIdOf } from './payment-session-route';

/** How long a payment-session request waits for a cart busy completing or changing (Medusa's own bound). */
const WAIT_SECONDS = 30;

/**
 * Holds the cart's lock (the key Medusa's cart completion, cart updates and payment webhooks lock) for
 * the whole payment-session request (docs/SECURITY.md, exactly once). Without it a new session could
 * replace one whose charge a concurrent completion is just sending, and the cart would be charged twice.
 */
export async function holdCartLock(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction,
): Promise<void> {
  let cartId: string | undefined;
  try {
    const collectionId = paymentCollectionIdOf(req);
    cartId = await cartIdOfCollection(req.scope, collectionId);
    // Medusa's own workflow fails with a TypeError (a 500) on an unknown collection: answer it here.
    if (!cartId && !(await collectionExists(req, collectionId)))
      throw new MedusaError(MedusaError.Types.NOT_FOUND, 'No such payment collection');
  } catch (error) {
    return next(error);
  }
  if (!cartId) return next();
  let passedOn = false;
  const released = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  try {
    await req.scope.resolve(Modules.LOCKING).execute(
      cartId,
      async () => {
        passedOn = true;
        next();
        await released;
      },
      { timeout: WAIT_SECONDS },
    );
  } catch (error) {
    if (passedOn) return;
    next(
      new MedusaError(
        MedusaError.Types.CONFLICT,
        `The cart is busy (completing or changing); try again in a moment: ${String(error)}`,
      ),
    );
  }
}

async function collectionExists(req: MedusaRequest, collectionId: string): Promise<boolean> {
  const found = await req.scope
    .resolve(Modules.PAYMENT)
    .listPaymentCollections({ id: collectionId }, { select: ['id'] });
  return found.length > 0;
}
