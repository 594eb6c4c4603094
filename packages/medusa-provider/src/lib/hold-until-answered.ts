import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
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
 * A guard's `judge` (which answers through `next`, letting the request on or refusing it) and what it
 * lets through, under the cart's guard lock; a cart busy past the wait is a 409.
 */
export async function underCartGuard(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction,
  cartId: string,
  judge: () => Promise<void>,
): Promise<void> {
  try {
    await holdUntilAnswered(req, res, [cartGuardKey(cartId)], judge);
  } catch (error) {
    next(error);
  }
}

/**
 * The longest the locks are held for one request, once held: a request whose handler never answers (a
 * hung workflow) must not keep its cart locked for good. Longer than Medusa's own waits for a cart (30 s).
 */
const MAX_HOLD_MS = 120_000;

/**
 * Runs `handOn` (the request's next step) holding the locking module's locks on `keys`, taken in
 * order, and keeps them until the route's handler has answered, so it runs under them as well. Locks
 * that cannot be had in time are a 409 the storefront can retry; once handed on, the request is
 * answered by its handler, whatever the lock does after.
 */
export async function holdUntilAnswered(
  req: MedusaRequest,
  res: MedusaResponse,
  keys: readonly string[],
  handOn: () => void | Promise<void>,
): Promise<void> {
  const locking = req.scope.resolve(Modules.LOCKING);
  let handedOn = false;
  const holdFrom = async (index: number): Promise<void> => {
    const key = keys[index];
    if (key === undefined) {
      // Counted from here, once every lock is held, and watched before the handler can answer.
      const answered = handlerAnswered(res);
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

/**
 * Resolves when the handler has answered (its `res.end`), or at MAX_HOLD_MS. Not on the connection's
 * `close`: a client that drops its connection does not stop the handler, whose change would then land
 * after the lock was given up. Not on `finish` alone: that waits for the client to read the answer, so
 * a client that stops reading would hold the cart's lock for as long as it liked.
 */
function handlerAnswered(res: MedusaResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, MAX_HOLD_MS);
    timer.unref?.();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    if (res.writableEnded) return done();
    const end = res.end;
    res.end = function endAndRelease(this: MedusaResponse, ...args: Parameters<MedusaResponse['end']>) {
      const result = end.apply(this, args);
      done();
      return result;
    } as MedusaResponse['end'];
    res.once('finish', done);
  });
}
