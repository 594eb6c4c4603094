import { describe, expect, it } from 'vitest';
import {
  type AttemptStore,
  afterAwaitedAnswer,
  handleCallback,
  type PaymentOutcome,
  type StoredAttempt,
} from '../src/index.js';
import { signedCallback } from '../src/testing.js';

const ACCOUNT = { gatewayNo: '12345678', signKey: 'main-sign-key' };
const SUCCESS: PaymentOutcome = {
  status: 'succeeded',
  orderNo: 'o-1',
  tradeNo: 'T1',
  amount: '10.00',
  currency: 'USD',
  orderInfo: 'Approved',
};

/** One attempt, sent and unanswered until `answer()`; counts reads and says who recorded what. */
class SentAttempt implements AttemptStore {
  attempt: StoredAttempt = { orderNo: 'o-1', orderAmount: '10.00', currency: 'USD', outcome: undefined };
  reads = 0;
  readonly recordedBy: string[] = [];
  finalOutcomesStay = true;
  awaitedWhileUnanswered = true;

  answerAwaited(attempt: StoredAttempt): boolean {
    return this.awaitedWhileUnanswered && attempt.outcome === undefined;
  }
  /** The checkout records the charge's answer. */
  answer(): void {
    this.attempt = { ...this.attempt, outcome: SUCCESS };
    this.recordedBy.push('checkout');
  }
  exclusive<T>(_orderNo: string, work: () => Promise<T>): Promise<T> {
    return work();
  }
  async find(orderNo: string) {
    this.reads++;
    return orderNo === this.attempt.orderNo ? { ...this.attempt } : undefined;
  }
  async save(attempt: StoredAttempt, next: PaymentOutcome) {
    this.attempt = { ...attempt, outcome: next };
    this.recordedBy.push('callback');
    return true;
  }
  async alert() {}
}

function successCallback(store: AttemptStore, wait = { totalMs: 200, firstPauseMs: 5 }) {
  const { body, headers } = signedCallback({
    ...ACCOUNT,
    body: {
      type: 'transaction.success',
      data: {
        orderNo: 'o-1',
        tradeNo: 'T1',
        orderAmount: '10.00',
        orderCurrency: 'USD',
        orderStatus: 'success',
        orderInfo: 'Approved',
      },
    },
  });
  return handleCallback({
    rawBody: body,
    headers,
    accounts: [ACCOUNT],
    storeFor: () => store,
    logger: { info() {}, warn() {}, error() {} },
    awaitedAnswerWait: wait,
  });
}

describe('a callback for a charge whose sender awaits the answer (docs/inbound.md)', () => {
  it('lets the sender record the answer first, then is a duplicate answered success', async () => {
    const store = new SentAttempt();
    setTimeout(() => store.answer(), 30);
    const handled = await successCallback(store);
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('duplicate');
    expect(store.recordedBy).toEqual(['checkout']);
  });

  it('records the outcome itself when the sender never does (killed after sending): nothing is lost', async () => {
    const store = new SentAttempt();
    const started = Date.now();
    const handled = await successCallback(store, { totalMs: 60, firstPauseMs: 5 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('changed');
    expect(store.recordedBy).toEqual(['callback']);
  });

  it('does not wait when nobody awaits the answer, and reads the attempt once for a settled one', async () => {
    const store = new SentAttempt();
    store.awaitedWhileUnanswered = false;
    expect((await successCallback(store)).result.kind).toBe('changed');
    expect(store.recordedBy).toEqual(['callback']);

    const settled = new SentAttempt();
    settled.answer();
    settled.reads = 0;
    expect((await successCallback(settled)).result.kind).toBe('duplicate');
    expect(settled.reads).toBe(1);
  });
});

describe('afterAwaitedAnswer', () => {
  it('looks again after doubling pauses, never longer than the bound in all', async () => {
    const store = new SentAttempt();
    const pauses: number[] = [];
    const seen = await afterAwaitedAnswer(store, 'o-1', { totalMs: 100, firstPauseMs: 5 }, async (ms) => {
      pauses.push(ms);
    });
    expect(pauses).toEqual([5, 10, 20, 40, 25]);
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(100);
    expect(seen?.attempt?.outcome).toBeUndefined();
  });

  it('reads nothing for a store that cannot tell, and stops at an unknown orderNo', async () => {
    const store = new SentAttempt();
    const blind = Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
      answerAwaited: undefined,
    });
    expect(await afterAwaitedAnswer(blind, 'o-1')).toBeUndefined();
    expect(blind.reads).toBe(0);
    expect(
      await afterAwaitedAnswer(store, 'nobody', { totalMs: 100, firstPauseMs: 5 }, async () => {
        throw new Error('must not pause');
      }),
    ).toEqual({ attempt: undefined });
  });
});
