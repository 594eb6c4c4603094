import type { Dispatcher } from 'undici';
import { errors } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COARSE_TIMER_LIMIT_MS, exchange } from '../src/http-exchange.js';

/** A dispatcher whose request reaches a socket and is never answered; it records the abort reason. */
function silentDispatcher() {
  const aborted: (Error | undefined)[] = [];
  const dispatcher = {
    dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
      const legacy = handler as unknown as {
        onConnect(abort: (reason?: Error) => void): void;
        onError(error: Error): void;
      };
      legacy.onConnect((reason) => {
        aborted.push(reason);
        legacy.onError(reason ?? new Error('aborted'));
      });
      return true;
    },
  } as unknown as Dispatcher;
  return { dispatcher, aborted };
}

const request: Dispatcher.DispatchOptions = { method: 'GET', path: '/', origin: 'http://gateway.test' };

afterEach(() => {
  vi.useRealTimers();
});

describe('exchange timeouts', () => {
  it("a timeout shorter than undici's one-second timer tick gets a timer of its own, fired at its time", async () => {
    vi.useFakeTimers();
    const { dispatcher, aborted } = silentDispatcher();
    const answer = exchange(dispatcher, request, undefined, 150).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(149);
    expect(aborted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(aborted).toHaveLength(1);
    expect(await answer).toBeInstanceOf(errors.HeadersTimeoutError);
  });

  it("a long timeout is left to undici's own timers (no timer per request)", async () => {
    vi.useFakeTimers();
    const { dispatcher, aborted } = silentDispatcher();
    void exchange(dispatcher, request, undefined, COARSE_TIMER_LIMIT_MS).catch(() => undefined);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(COARSE_TIMER_LIMIT_MS * 2);
    expect(aborted).toEqual([]);
  });
});
