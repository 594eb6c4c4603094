import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { holdUntilAnswered } from '../src/lib/hold-until-answered';

/** The locking module as far as holdUntilAnswered uses it: which keys a running job holds. */
function lockingThatRecords() {
  const held = new Set<string>();
  return {
    held,
    scope: {
      resolve: () => ({
        async execute(key: string, job: () => Promise<void>) {
          held.add(key);
          try {
            await job();
          } finally {
            held.delete(key);
          }
        },
      }),
    },
  };
}

/** A response whose client may drop the connection or stop reading: `finish` only when told. */
class FakeResponse extends EventEmitter {
  writableEnded = false;
  end() {
    this.writableEnded = true;
    return this;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('holdUntilAnswered (the cart guard lock)', () => {
  it('attack: a client that drops its connection does not release the lock before the handler has answered', async () => {
    const { held, scope } = lockingThatRecords();
    const res = new FakeResponse();
    const holding = holdUntilAnswered({ scope } as never, res as never, ['guard', 'cart'], () => undefined);
    await tick();
    expect([...held]).toEqual(['guard', 'cart']);
    // The connection closes while the handler (a cart change) still runs.
    res.emit('close');
    await tick();
    expect([...held]).toEqual(['guard', 'cart']);
    // The handler answers: the change is done, the locks go.
    res.end();
    await holding;
    expect([...held]).toEqual([]);
  });

  it('attack: a client that stops reading the answer does not keep the lock (released on the answer, not its delivery)', async () => {
    const { held, scope } = lockingThatRecords();
    const res = new FakeResponse();
    const holding = holdUntilAnswered({ scope } as never, res as never, ['guard'], () => {
      res.end(); // answered at once, never `finish`ed: the client reads nothing
    });
    await holding;
    expect([...held]).toEqual([]);
  });

  it('a handler that never answers gives the lock up after two minutes', async () => {
    vi.useFakeTimers();
    try {
      const { held, scope } = lockingThatRecords();
      const holding = holdUntilAnswered(
        { scope } as never,
        new FakeResponse() as never,
        ['guard'],
        () => undefined,
      );
      await vi.advanceTimersByTimeAsync(119_000);
      expect([...held]).toEqual(['guard']);
      await vi.advanceTimersByTimeAsync(2_000);
      await holding;
      expect([...held]).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a lock that cannot be had is a 409 and the request goes no further', async () => {
    const handOn = vi.fn();
    const scope = {
      resolve: () => ({
        execute: async () => {
          throw new Error('timed out');
        },
      }),
    };
    await expect(
      holdUntilAnswered({ scope } as never, new FakeResponse() as never, ['guard'], handOn),
    ).rejects.toMatchObject({ type: 'conflict', message: expect.stringMatching(/^The cart is busy/) });
    expect(handOn).not.toHaveBeenCalled();
  });
});
