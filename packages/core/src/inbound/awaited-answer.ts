import type { AttemptStore } from './attempt-store.js';
import type { StoredAttempt } from './decision.js';

/**
 * How long a callback lets the request that sent a charge record the gateway's answer first, and how
 * soon it looks again (each pause doubles). The answer is normally recorded within milliseconds of
 * the callback; the bound keeps a callback for a charge whose sender died (killed after sending) from
 * waiting long before it records the outcome itself.
 */
export interface AwaitedAnswerWait {
  totalMs: number;
  firstPauseMs: number;
}

export const AWAITED_ANSWER_WAIT: AwaitedAnswerWait = { totalMs: 1500, firstPauseMs: 5 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Gives the checkout that sent a charge the first turn at recording its answer (docs/inbound.md,
 * "The synchronous answer goes first"). The gateway may send the callback with the answer; whichever
 * records first holds the attempt's lock and the other waits for it, so a callback going first makes
 * the shopper's checkout wait for a second request's trip through a busy server. The callback loses
 * nothing by waiting: once the answer is recorded it is a duplicate, and when nobody records it within
 * the bound the callback records it as usual. Stores that cannot tell leave `answerAwaited` out.
 * Returns the attempt as last read (for recordOutcome), or undefined when it did not read.
 */
export async function afterAwaitedAnswer<A extends StoredAttempt>(
  store: AttemptStore<A>,
  orderNo: string,
  wait: AwaitedAnswerWait = AWAITED_ANSWER_WAIT,
  sleep: (ms: number) => Promise<void> = pause,
): Promise<{ attempt: A | undefined } | undefined> {
  const awaited = store.answerAwaited?.bind(store);
  if (!awaited) return undefined;
  let waited = 0;
  let next = wait.firstPauseMs;
  for (;;) {
    const seen = await store.find(orderNo);
    if (!seen || !awaited(seen) || waited >= wait.totalMs) return { attempt: seen };
    const ms = Math.min(next, wait.totalMs - waited);
    await sleep(ms);
    waited += ms;
    next *= 2;
  }
}
