import { Logger } from '@vendure/core';
import { catchError, from, mergeMap, type Observable, tap, throwError } from 'rxjs';
import { loggerCtx } from '../constants';

/**
 * `answer` with `release` run once the mutation's work is done (its transaction committed), whatever
 * the answer, and before the answer leaves: a storefront that falls back to the card right after a
 * decline must find the order free. Vendure's transaction interceptor emits the resolver's promise
 * rather than its value, so the observable completes before the work is done: the promise is awaited
 * here. The answer waits for the release at most `waitMs` (a starved pool must not keep a committed
 * payment's answer); the release then goes on, and a hold left behind ends by its age.
 */
export function releasedWhenAnswered(
  answer: Observable<unknown>,
  release: () => Promise<void>,
  waitMs = 2_000,
): Observable<unknown> {
  // The release and its bounded wait, started once whichever way the answer ends.
  let waited: Promise<void> | undefined;
  const releaseOnce = () => {
    waited ??= boundedBy(
      release().catch((error: unknown) => {
        Logger.warn(`Hold of an order for another payment method not released: ${String(error)}`, loggerCtx);
      }),
      waitMs,
    );
    return waited;
  };
  return answer.pipe(
    mergeMap(async (value) => {
      try {
        return await value;
      } finally {
        await releaseOnce();
      }
    }),
    // A mutation that failed before answering, or answered nothing.
    catchError((error: unknown) => from(releaseOnce()).pipe(mergeMap(() => throwError(() => error)))),
    tap({ complete: () => void releaseOnce() }),
  );
}

/** `work`, or after `ms` whichever comes first; `work` goes on either way. */
function boundedBy(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}
