/** The other-method hold is let go before the mutation's answer leaves (other-method-guard.interceptor.ts). */
import { firstValueFrom, of, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { releasedWhenAnswered } from '../src/api/released-when-answered';

/** A release that takes a while, as a database delete does, and says when it has finished. */
function slowRelease() {
  const state = { calls: 0, done: false };
  const release = async () => {
    state.calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 30));
    state.done = true;
  };
  return { state, release };
}

describe('releasedWhenAnswered', () => {
  it('answers only once the hold is released (a card payment right after a decline finds the order free), and releases once', async () => {
    const { state, release } = slowRelease();
    // Vendure's transaction interceptor emits the resolver's promise, not its value.
    const answer = releasedWhenAnswered(of(Promise.resolve('PaymentDeclinedError')), release);
    await expect(firstValueFrom(answer)).resolves.toBe('PaymentDeclinedError');
    expect(state.done).toBe(true);
    expect(state.calls).toBe(1);
  });

  it('a resolver that throws: released before the error leaves', async () => {
    const { state, release } = slowRelease();
    const failing = releasedWhenAnswered(of(Promise.reject(new Error('handler failed'))), release);
    await expect(firstValueFrom(failing)).rejects.toThrow('handler failed');
    expect(state.done).toBe(true);
    const early = slowRelease();
    const beforeAnswer = releasedWhenAnswered(
      throwError(() => new Error('refused before the resolver')),
      early.release,
    );
    await expect(firstValueFrom(beforeAnswer)).rejects.toThrow('refused before the resolver');
    expect(early.state.done).toBe(true);
    expect(early.state.calls).toBe(1);
  });

  it('a release that hangs (a starved pool) keeps the answer only for the bound, then lets it go', async () => {
    let calls = 0;
    const hanging = () => {
      calls += 1;
      return new Promise<void>(() => undefined);
    };
    const answer = releasedWhenAnswered(of(Promise.resolve('Order')), hanging, 20);
    await expect(firstValueFrom(answer)).resolves.toBe('Order');
    expect(calls).toBe(1);
  });
});
