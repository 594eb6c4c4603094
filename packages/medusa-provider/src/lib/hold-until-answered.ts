import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';

/** How long a guarded request waits for a cart busy completing or changing (Medusa's own bound). */
const WAIT_SECONDS = 30;

/**
 * The plugin's own lock on a cart's guards (docs/SECURITY.md §2): a guard's check and the change it lets
 * through happen under it, and the payment-session request holds it too, so a change judged before a
 * customer's session existed cannot land after it. It is not Medusa's cart key, which Medusa's cart
 * workflows take themselves while a guard holds this one (keys are always taken this one first).
 */
export function cartGuardKey(cartId: string): string {
  return `gatewaykit-cart-guard:${cartId}`;
}

/**
 * Runs `handOn` (the request's next step) holding the locking module's locks on `keys`, taken in
 * order, and keeps them until the response is sent, so the route's own handler runs under them as
 * well. Locks that cannot be had in time are a 409 the storefront can retry; once handed on, the
 * request is answered by its handler, whatever the lock does after.
 */
export async function holdUntilAnswered(
  req: MedusaRequest,
  res: MedusaResponse,
  keys: readonly string[],
  handOn: () => void | Promise<void>,
): Promise<void> {
  const answered = new Promise<void>((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
  const locking = req.scope.resolve(Modules.LOCKING);
  let handedOn = false;
  const holdFrom = async (index: number): Promise<void> => {
    const key = keys[index];
    if (key === undefined) {
      handedOn = true;
      await handOn();
      await answered;
      return;
    }
    await locking.execute(key, () => holdFrom(index + 1), { timeout: WAIT_SECONDS });
  };
  try {
    await holdFrom(0);
  } catch (error) {
    if (handedOn) return;
    throw new MedusaError(
      MedusaError.Types.CONFLICT,
      `The cart is busy (completing or changing); try again in a moment: ${String(error)}`,
    );
  }
}
