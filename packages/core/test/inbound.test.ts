import { describe, expect, it, vi } from 'vitest';
import {
  type AttemptStore,
  decideInbound,
  GatewayBadRequestError,
  handleCallback,
  handleReturn,
  KEEP_DEADLINE_MS,
  type KeptCallback,
  keptEventOf,
  keptOrderNoForLog,
  type MerchantAlert,
  outcomeFromCallback,
  type PaymentOutcome,
  RecordLaterError,
  recordKeptCallback,
  recordOutcome,
  type StoredAttempt,
  type TransactionRecord,
} from '../src/index.js';
import { hmacSha256Hex } from '../src/signing.js';
import { signedCallback, signedReturnQuery } from '../src/testing.js';

const MAIN = { gatewayNo: '12345678', signKey: 'main-sign-key' };
const SECOND = { gatewayNo: '87654321', signKey: 'second-sign-key' };

/** An in-memory AttemptStore: what an adapter's database would hold for one account. */
class MemoryStore implements AttemptStore {
  readonly attempts = new Map<string, StoredAttempt>();
  readonly alerts: MerchantAlert[] = [];
  readonly changes: string[] = [];
  readonly notices: string[] = [];
  /** Saves that lose to a concurrent writer before succeeding. */
  conflicts = 0;
  finalOutcomesStay = true;
  failWith: Error | undefined;

  add(orderNo: string, outcome?: PaymentOutcome): this {
    this.attempts.set(orderNo, { orderNo, orderAmount: '10.00', currency: 'USD', outcome });
    return this;
  }
  /** orderNos whose exclusive section was entered, in order. */
  readonly exclusives: string[] = [];
  exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
    this.exclusives.push(orderNo);
    return work();
  }
  async find(orderNo: string) {
    if (this.failWith) throw this.failWith;
    const found = this.attempts.get(orderNo);
    return found && { ...found };
  }
  async save(attempt: StoredAttempt, next: PaymentOutcome) {
    if (this.conflicts > 0) {
      this.conflicts--;
      return false;
    }
    this.attempts.set(attempt.orderNo, { ...attempt, outcome: next });
    return true;
  }
  async afterChange(attempt: StoredAttempt, next: PaymentOutcome) {
    this.changes.push(`${attempt.orderNo}:${next.status}`);
  }
  readonly unchanged: string[] = [];
  async afterUnchanged(attempt: StoredAttempt, current: PaymentOutcome) {
    this.unchanged.push(`${attempt.orderNo}:${current.status}`);
  }
  async alert(alert: MerchantAlert) {
    this.alerts.push(alert);
  }
  async notice(event: { type: string }, attempt: StoredAttempt | undefined) {
    this.notices.push(`${event.type}:${attempt?.orderNo ?? 'none'}`);
  }
  statusOf(orderNo: string) {
    return this.attempts.get(orderNo)?.outcome?.status;
  }
}

const silent = { info() {}, warn() {}, error() {} };

/** A seal as core makes it (notifications.ts): HMAC of its context line and the event's JSON. */
function sealKeptCallbackWith(eventJson: string, signKey: string): string {
  return hmacSha256Hex(signKey, `gatewaykit kept callback\n${eventJson}`);
}

/** The gateway's own records of trades, as `transactions.retrieve` answers (a return's confirmation). */
class Ledger {
  readonly trades = new Map<string, TransactionRecord>();
  readonly asked: string[] = [];
  down: Error | undefined;
  add(tradeNo: string, orderNo: string, tradeStatus: TransactionRecord['tradeStatus'] = 'success'): this {
    this.trades.set(tradeNo, {
      tradeNo,
      orderNo,
      tradeStatus,
      tradeDate: '2026-11-28 05:00:00',
      tradeInfo: 'Approved',
      tradeAmount: '10.00',
      tradeCurrency: 'USD',
    });
    return this;
  }
  readonly record = async (tradeNo: string): Promise<TransactionRecord> => {
    this.asked.push(tradeNo);
    if (this.down) throw this.down;
    const trade = this.trades.get(tradeNo);
    if (!trade) throw new GatewayBadRequestError(`tradeNo ${tradeNo} does not exist`, { code: 'P0002' });
    return trade;
  };
}

function callbackData(orderNo: string, overrides: Record<string, string> = {}) {
  return {
    orderNo,
    tradeNo: 'T1',
    orderAmount: '10.00',
    orderCurrency: 'USD',
    orderStatus: 'success',
    orderInfo: 'Approved',
    ...overrides,
  };
}

async function callback(
  stores: Map<string, MemoryStore>,
  options: {
    account?: typeof MAIN;
    type?: string;
    data?: Record<string, string>;
    requestTime?: number;
    signKey?: string;
  } = {},
) {
  const account = options.account ?? MAIN;
  const { body, headers } = signedCallback({
    gatewayNo: account.gatewayNo,
    signKey: options.signKey ?? account.signKey,
    body: { type: options.type ?? 'transaction.success', data: options.data ?? callbackData('o-1') },
    ...(options.requestTime === undefined ? {} : { requestTime: options.requestTime }),
  });
  return handleCallback({
    rawBody: body,
    headers,
    accounts: [MAIN, SECOND],
    storeFor: (verifiedBy) => stores.get(verifiedBy.gatewayNo)!,
    logger: silent,
  });
}

function storesWith(main: MemoryStore, second = new MemoryStore()) {
  return new Map([
    [MAIN.gatewayNo, main],
    [SECOND.gatewayNo, second],
  ]);
}

describe('decideInbound', () => {
  const attempt = (outcome?: PaymentOutcome): StoredAttempt => ({
    orderNo: 'o',
    orderAmount: '1000',
    currency: 'JPY',
    outcome,
  });
  const success: PaymentOutcome = { status: 'succeeded', orderNo: 'o', amount: '1000', currency: 'jpy' };

  it('unknown, mismatch, changed, duplicate and stale', () => {
    expect(decideInbound(undefined, success).kind).toBe('unknown-attempt');
    expect(decideInbound(attempt(), { ...success, amount: '999' }).kind).toBe('mismatch');
    expect(decideInbound(attempt(), { ...success, currency: 'USD' }).kind).toBe('mismatch');
    expect(decideInbound(attempt(), success)).toMatchObject({ kind: 'changed', next: success });
    expect(decideInbound(attempt(success), success).kind).toBe('duplicate');
    const fail: PaymentOutcome = { status: 'failed', orderNo: 'o', reason: 'declined' };
    expect(decideInbound(attempt(success), fail)).toMatchObject({ kind: 'stale', current: success });
  });

  it('a success must name its amount; a failure without one is about no money and is taken', () => {
    const bare: PaymentOutcome = { status: 'succeeded', orderNo: 'o' };
    expect(decideInbound(attempt(), bare)).toMatchObject({ kind: 'mismatch' });
    const fail: PaymentOutcome = { status: 'failed', orderNo: 'o', reason: 'declined' };
    expect(decideInbound(attempt(), fail).kind).toBe('changed');
    expect(decideInbound(attempt(), { ...fail, amount: '1', currency: 'JPY' }).kind).toBe('mismatch');
  });
});

describe('handleCallback: one answer per inbound case (docs/inbound.md)', () => {
  it('a recorded outcome is answered success, saved once and handed to afterChange', async () => {
    const main = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    const handled = await callback(storesWith(main));
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('changed');
    expect(main.statusOf('o-1')).toBe('succeeded');
    expect(main.changes).toEqual(['o-1:succeeded']);
  });

  it('bad signature, stale and future request-time: 401, nothing read or stored', async () => {
    const main = new MemoryStore().add('o-1');
    main.failWith = new Error('the store must not be read');
    const stores = storesWith(main);
    for (const options of [
      { signKey: 'not-the-key' },
      { requestTime: Date.now() - 11 * 60 * 1000 },
      { requestTime: Date.now() + 11 * 60 * 1000 },
    ]) {
      const handled = await callback(stores, options);
      expect(handled.answer).toEqual({ status: 401, body: 'invalid signature' });
      expect(handled.result.kind).toBe('rejected');
    }
    expect(main.statusOf('o-1')).toBeUndefined();
  });

  it('a gateway number no account has: 401 saying so, nothing read; a wrong key says the signature', async () => {
    const main = new MemoryStore().add('o-1');
    main.failWith = new Error('the store must not be read');
    const unknown = await callback(storesWith(main), { account: { gatewayNo: '99999999', signKey: 'k' } });
    expect(unknown.answer).toEqual({ status: 401, body: 'invalid signature' });
    expect(unknown.result).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/gateway number/),
    });
    const wrongKey = await callback(storesWith(main), { signKey: 'not-the-key' });
    expect(wrongKey.result).toMatchObject({ kind: 'rejected' });
    expect(wrongKey.result).not.toMatchObject({ reason: expect.stringMatching(/gateway number/) });
    expect(main.statusOf('o-1')).toBeUndefined();
  });

  it('unknown orderNo: success answered (retrying cannot help); a success raises paid-not-applied', async () => {
    const main = new MemoryStore();
    const handled = await callback(storesWith(main), { data: callbackData('nobody') });
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('unknown-attempt');
    expect(main.alerts).toMatchObject([{ kind: 'paid-not-applied', outcome: { orderNo: 'nobody' } }]);
    const failed = await callback(storesWith(main), {
      type: 'transaction.fail',
      data: callbackData('nobody-2', { orderStatus: 'fail' }),
    });
    expect(failed.answer.status).toBe(200);
    expect(main.alerts).toHaveLength(1);
  });

  it('an attempt of another account is unknown to the account that signed it', async () => {
    const main = new MemoryStore().add('o-1');
    const second = new MemoryStore();
    const handled = await callback(storesWith(main, second), { account: SECOND });
    expect(handled.result.kind).toBe('unknown-attempt');
    expect(handled.account).toBe(SECOND);
    expect(main.statusOf('o-1')).toBeUndefined();
    expect(second.alerts).toHaveLength(1);
  });

  it('two entries sharing one merchant account: a callback or return reaches the entry holding its attempt', async () => {
    // One merchant account behind two entries (two storefronts): both keys verify every notification.
    const shopA = { ...MAIN, storefront: 'a' };
    const shopB = { ...MAIN, storefront: 'b' };
    const stores = new Map([
      [shopA, new MemoryStore()],
      [shopB, new MemoryStore().add('o-b')],
    ]);
    const { body, headers } = signedCallback({
      gatewayNo: MAIN.gatewayNo,
      signKey: MAIN.signKey,
      body: { type: 'transaction.success', data: callbackData('o-b') },
    });
    const handled = await handleCallback({
      rawBody: body,
      headers,
      accounts: [shopA, shopB],
      storeFor: (account) => stores.get(account)!,
      logger: silent,
    });
    expect(handled.result.kind).toBe('changed');
    expect(handled.account).toBe(shopB);
    expect(stores.get(shopB)!.statusOf('o-b')).toBe('succeeded');
    expect(stores.get(shopA)!.alerts).toEqual([]);
    const returned = await handleReturn({
      query: signedReturnQuery(
        {
          gatewayNo: MAIN.gatewayNo,
          orderNo: 'o-b',
          tradeNo: 'T1',
          orderAmount: '10.00',
          orderCurrency: 'USD',
          orderStatus: 'success',
          orderInfo: 'Approved',
        },
        MAIN.signKey,
      ),
      accounts: [shopA, shopB],
      storeFor: (account) => stores.get(account)!,
      logger: silent,
      storefrontUrl: (_attempt, status, account) =>
        `https://${account.storefront}.example/done?status=${status}`,
      tradeRecord: (_account, tradeNo) => new Ledger().add('T1', 'o-b').record(tradeNo),
    });
    expect(returned.answer.location).toBe('https://b.example/done?status=succeeded');
    // Nobody holds it: the first entry answers, as before.
    const nobody = signedCallback({
      gatewayNo: MAIN.gatewayNo,
      signKey: MAIN.signKey,
      body: { type: 'transaction.success', data: callbackData('nobody') },
    });
    const unknown = await handleCallback({
      rawBody: nobody.body,
      headers: nobody.headers,
      accounts: [shopA, shopB],
      storeFor: (account) => stores.get(account)!,
      logger: silent,
    });
    expect(unknown.result.kind).toBe('unknown-attempt');
    expect(unknown.account).toBe(shopA);
  });

  it('amount or currency mismatch: success answered, nothing changed, the merchant alerted', async () => {
    const main = new MemoryStore().add('o-1');
    for (const data of [
      callbackData('o-1', { orderAmount: '1.00' }),
      callbackData('o-1', { orderCurrency: 'EUR' }),
    ]) {
      const handled = await callback(storesWith(main), { data });
      expect(handled.answer).toEqual({ status: 200, body: 'success' });
      expect(handled.result.kind).toBe('mismatch');
    }
    expect(main.statusOf('o-1')).toBeUndefined();
    expect(main.alerts.map((a) => a.kind)).toEqual(['amount-mismatch', 'amount-mismatch']);
  });

  it('duplicate and fail-after-success: success answered, the success stays', async () => {
    const main = new MemoryStore().add('o-1');
    const stores = storesWith(main);
    await callback(stores);
    expect((await callback(stores)).result.kind).toBe('duplicate');
    const late = await callback(stores, {
      type: 'transaction.fail',
      data: callbackData('o-1', { orderStatus: 'fail' }),
    });
    expect(late.answer).toEqual({ status: 200, body: 'success' });
    expect(late.result.kind).toBe('stale');
    expect(main.statusOf('o-1')).toBe('succeeded');
    expect(main.changes).toEqual(['o-1:succeeded']);
  });

  it('a save lost to a concurrent writer is decided again', async () => {
    const main = new MemoryStore().add('o-1');
    main.conflicts = 2;
    const handled = await callback(storesWith(main));
    expect(handled.result.kind).toBe('changed');
    expect(main.statusOf('o-1')).toBe('succeeded');
  });

  it('storage failing: 500 so the gateway delivers it again', async () => {
    const main = new MemoryStore().add('o-1');
    main.failWith = new Error('database is down');
    const handled = await callback(storesWith(main));
    expect(handled.answer).toEqual({ status: 500, body: 'error' });
    expect(handled.result.kind).toBe('failed');
  });

  it('refund and chargeback notices: acknowledged and handed to the store, the payment unchanged', async () => {
    const main = new MemoryStore().add('o-1', { status: 'succeeded', orderNo: 'o-1' });
    const handled = await callback(storesWith(main), {
      type: 'refund.success',
      data: { orderNo: 'o-1', tradeNo: 'T1', refundAmount: '5.00' },
    });
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(main.notices).toEqual(['refund.success:o-1']);
    expect(main.statusOf('o-1')).toBe('succeeded');
  });
});

describe('handleCallback with keep: answered once kept, recorded by the worker (docs/inbound.md#kept-callbacks)', () => {
  /** What core's keep would hand over for `event`, sealed with MAIN's key (as a queue holds it). */
  function sealed(event: unknown) {
    const json = JSON.stringify(event);
    return { event: json, seal: sealKeptCallbackWith(json, MAIN.signKey) };
  }

  async function keptCallback(
    main: MemoryStore,
    keep: (kept: KeptCallback<typeof MAIN>) => Promise<boolean>,
    options: { signKey?: string; type?: string; data?: Record<string, string> } = {},
  ) {
    const { body, headers } = signedCallback({
      gatewayNo: MAIN.gatewayNo,
      signKey: options.signKey ?? MAIN.signKey,
      body: { type: options.type ?? 'transaction.success', data: options.data ?? callbackData('o-1') },
    });
    return handleCallback({
      rawBody: body,
      headers,
      accounts: [MAIN],
      storeFor: () => main,
      logger: silent,
      keep,
    });
  }

  it('a status callback is kept and answered success with nothing recorded; the worker records it once', async () => {
    const main = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    const kept: KeptCallback<typeof MAIN>[] = [];
    const handled = await keptCallback(main, async (k) => kept.push(k) > 0);
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('kept');
    expect(kept).toHaveLength(1);
    expect(kept[0]?.account).toBe(MAIN);
    expect(main.statusOf('o-1')).toBe('redirect');
    expect(main.exclusives).toEqual([]);

    // What a queue gives back is JSON: the worker sees a copy, not the object kept.
    const copy = JSON.parse(JSON.stringify(kept[0]?.sealed));
    const first = await recordKeptCallback({
      sealed: copy,
      signKey: MAIN.signKey,
      store: main,
      logger: silent,
    });
    expect(first.kind).toBe('changed');
    const again = await recordKeptCallback({
      sealed: copy,
      signKey: MAIN.signKey,
      store: main,
      logger: silent,
    });
    expect(again.kind).toBe('duplicate');
    expect(main.statusOf('o-1')).toBe('succeeded');
    expect(main.changes).toEqual(['o-1:succeeded']);
  });

  it('an account that does not keep its callbacks (keep answers false) records in the request', async () => {
    const main = new MemoryStore().add('o-1');
    const handled = await keptCallback(main, async () => false);
    expect(handled.result.kind).toBe('changed');
    expect(main.statusOf('o-1')).toBe('succeeded');
  });

  it('a copy for a final attempt is answered from a plain read, never kept (a duplicate costs no job)', async () => {
    const main = new MemoryStore().add('o-1', {
      status: 'succeeded',
      orderNo: 'o-1',
      tradeNo: 'T1',
      amount: '10.00',
      currency: 'USD',
    });
    const kept: unknown[] = [];
    const handled = await keptCallback(main, async (k) => kept.push(k) > 0);
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('duplicate');
    expect(kept).toEqual([]);
    expect(main.exclusives).toEqual([]);
    // A store that decides everything under its exclusive section keeps it instead.
    main.finalOutcomesStay = false;
    const keptNow = await keptCallback(main, async (k) => kept.push(k) > 0);
    expect(keptNow.result.kind).toBe('kept');
    expect(kept).toHaveLength(1);
  });

  it('what is kept carries no card number and no unredacted text, and records the same outcome', async () => {
    const main = new MemoryStore().add('o-1');
    const kept: KeptCallback<typeof MAIN>[] = [];
    await keptCallback(main, async (k) => kept.push(k) > 0, {
      data: callbackData('o-1', {
        maskCardNo: '4111111111111111',
        orderInfo: 'Approved for card 4111 1111 1111 1111',
        customerEmail: 'shopper@example.com',
      }),
    });
    const text = kept[0]?.sealed.event ?? '';
    expect(text).not.toMatch(/4111\s?1111\s?1111\s?1111|shopper@example.com/);
    expect(Object.keys(JSON.parse(text).data).sort()).toEqual(
      ['orderAmount', 'orderCurrency', 'orderInfo', 'orderNo', 'orderStatus', 'tradeNo'].sort(),
    );
    const original = callbackData('o-1', {
      maskCardNo: '411111******1111',
      orderInfo: 'I0061 Duplicate Order',
    });
    const event = { type: 'transaction.fail', data: { ...original, orderStatus: 'fail' } };
    const outcome = outcomeFromCallback(event);
    if (!outcome) throw new Error('no outcome');
    expect(outcomeFromCallback(JSON.parse(JSON.stringify(keptEventOf(event, outcome))))).toEqual(outcome);
  });

  it('the orderNo of a kept callback, for a log line: shortened and redacted, never trusted', () => {
    expect(keptOrderNoForLog({ event: JSON.stringify({ type: 't', data: { orderNo: 'O-1-1' } }) })).toBe(
      'O-1-1',
    );
    const cardLike = keptOrderNoForLog({ event: '{"orderNo":"4111111111111111"}' });
    expect(cardLike).not.toContain('4111111111111111');
    for (const junk of [undefined, null, 'x', { event: 42 }, { event: '{"orderNo":""}' }]) {
      expect(keptOrderNoForLog(junk)).toBe('?');
    }
  });

  it('a queue that does not answer within KEEP_DEADLINE_MS: 500, so the gateway delivers it again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const main = new MemoryStore().add('o-1');
      const pending = keptCallback(main, () => new Promise<boolean>(() => undefined));
      await vi.advanceTimersByTimeAsync(KEEP_DEADLINE_MS + 1);
      const handled = await pending;
      expect(handled.answer).toEqual({ status: 500, body: 'error' });
      expect(main.statusOf('o-1')).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('an amount mismatch is kept too, and the worker alerts it', async () => {
    const main = new MemoryStore().add('o-1');
    const kept: KeptCallback<typeof MAIN>[] = [];
    const handled = await keptCallback(main, async (k) => kept.push(k) > 0, {
      data: callbackData('o-1', { orderAmount: '1.00' }),
    });
    expect(handled.result.kind).toBe('kept');
    const decided = await recordKeptCallback({
      sealed: kept[0]?.sealed,
      signKey: MAIN.signKey,
      store: main,
      logger: silent,
    });
    expect(decided.kind).toBe('mismatch');
    expect(main.alerts).toMatchObject([{ kind: 'amount-mismatch' }]);
    expect(main.statusOf('o-1')).toBeUndefined();
  });

  it("the queue's last try: a success it cannot record is alerted paid-not-applied (a failure is not), and still throws", async () => {
    const main = new MemoryStore().add('o-1');
    main.failWith = new Error('database down');
    const success = sealed({ type: 'transaction.success', data: callbackData('o-1') });
    const record = (kept: unknown, lastTry = false) =>
      recordKeptCallback({ sealed: kept, signKey: MAIN.signKey, store: main, logger: silent, lastTry });
    await expect(record(success)).rejects.toThrow();
    expect(main.alerts).toEqual([]);
    await expect(record(success, true)).rejects.toThrow('database down');
    expect(main.alerts).toMatchObject([
      { kind: 'paid-not-applied', outcome: { orderNo: 'o-1', status: 'succeeded' } },
    ]);
    const fail = sealed({ type: 'transaction.fail', data: callbackData('o-1', { orderStatus: 'fail' }) });
    await expect(record(fail, true)).rejects.toThrow();
    expect(main.alerts).toHaveLength(1);
  });

  it('attack: the worker records only what the seal confirms: an event written to the queue by hand, changed there, or sealed with another key is refused before any read', async () => {
    const main = new MemoryStore().add('o-1');
    main.failWith = new Error('the store must not be read');
    const real = sealed({ type: 'transaction.success', data: callbackData('o-1') });
    const madeUp = JSON.stringify({
      type: 'transaction.success',
      data: callbackData('o-1', { tradeNo: 'T9' }),
    });
    for (const kept of [
      { event: madeUp, seal: real.seal },
      { event: real.event.replace('"T1"', '"T9"'), seal: real.seal },
      { event: madeUp, seal: sealKeptCallbackWith(madeUp, 'another-key') },
      { event: real.event },
      JSON.parse(real.event),
      'junk',
    ]) {
      await expect(
        recordKeptCallback({ sealed: kept, signKey: MAIN.signKey, store: main, logger: silent }),
      ).rejects.toThrow(/seal does not match/);
    }
    // The account's key changed since it was kept: the same refusal (the last try alerts nothing it cannot read).
    await expect(
      recordKeptCallback({ sealed: real, signKey: 'rotated-key', store: main, logger: silent }),
    ).rejects.toThrow(/seal does not match/);
    expect(main.statusOf('o-1')).toBeUndefined();
  });

  it('a forged or stale callback is never kept: 401', async () => {
    const main = new MemoryStore().add('o-1');
    const kept: unknown[] = [];
    const handled = await keptCallback(main, async (k) => kept.push(k) > 0, { signKey: 'not-the-key' });
    expect(handled.answer.status).toBe(401);
    expect(kept).toEqual([]);
  });

  it('keeping fails: 500, so the gateway delivers it again; nothing recorded', async () => {
    const main = new MemoryStore().add('o-1');
    const handled = await keptCallback(main, async () => {
      throw new Error('queue down');
    });
    expect(handled.answer).toEqual({ status: 500, body: 'error' });
    expect(main.statusOf('o-1')).toBeUndefined();
  });

  it('a notice (refund) is still handled in the request, not kept', async () => {
    const main = new MemoryStore().add('o-1');
    const kept: unknown[] = [];
    const handled = await keptCallback(main, async (k) => kept.push(k) > 0, {
      type: 'refund.success',
      data: callbackData('o-1', { batchNo: 'B1', amount: '1.00', currency: 'USD' }),
    });
    expect(handled.answer.status).toBe(200);
    expect(handled.result.kind).toBe('notice');
    expect(kept).toEqual([]);
    expect(main.notices).toEqual(['refund.success:o-1']);
  });

  it('the worker refuses what is not a status callback, and throws (the queue tries again) when the store fails', async () => {
    const main = new MemoryStore().add('o-1');
    const record = (kept: unknown) =>
      recordKeptCallback({ sealed: kept, signKey: MAIN.signKey, store: main, logger: silent });
    await expect(record(sealed({ type: 'refund.success', data: {} }))).rejects.toThrow(
      /not a payment status callback/,
    );
    await expect(record(sealed('junk'))).rejects.toThrow(/not a payment status callback/);
    main.failWith = new RecordLaterError('another payment is answering');
    await expect(record(sealed({ type: 'transaction.success', data: callbackData('o-1') }))).rejects.toThrow(
      /another payment/,
    );
    expect(main.statusOf('o-1')).toBeUndefined();
  });
});

describe('recordOutcome: a final attempt is answered from a plain read', () => {
  const success: PaymentOutcome = {
    status: 'succeeded',
    orderNo: 'o-1',
    tradeNo: 'T1',
    amount: '10.00',
    currency: 'USD',
  };
  const failure: PaymentOutcome = { status: 'failed', orderNo: 'o-1', reason: 'Declined' };

  it('where final outcomes stay, a duplicate or a stale outcome for a settled attempt never waits for the exclusive section', async () => {
    const store = new MemoryStore().add('o-1', success);
    expect((await recordOutcome(store, success)).kind).toBe('duplicate');
    expect((await recordOutcome(store, failure)).kind).toBe('stale');
    expect(store.exclusives).toEqual([]);
    expect(store.statusOf('o-1')).toBe('succeeded');
    expect(store.changes).toEqual([]);
  });

  it('afterUnchanged follows every decision that changed nothing, on both paths, with the stored outcome', async () => {
    const pending: PaymentOutcome = { status: 'pending', orderNo: 'o-2' };
    const store = new MemoryStore().add('o-1', success).add('o-2', pending);
    await recordOutcome(store, success);
    await recordOutcome(store, failure);
    await recordOutcome(store, pending);
    await recordOutcome(store, { ...success, orderNo: 'o-2' });
    await recordOutcome(store, { ...success, amount: '11.00' });
    expect(store.unchanged).toEqual(['o-1:succeeded', 'o-1:succeeded', 'o-2:pending']);
    expect(store.changes).toEqual(['o-2:succeeded']);
  });

  it('a store that may write over a final outcome has every outcome decided under the section', async () => {
    const store = new MemoryStore().add('o-1', success);
    store.finalOutcomesStay = false;
    expect((await recordOutcome(store, success)).kind).toBe('duplicate');
    expect(store.exclusives).toEqual(['o-1']);
  });

  it('a store whose final outcomes may be overwritten answers from a plain read only the attempts it says stay', async () => {
    const pending: PaymentOutcome = { status: 'pending', orderNo: 'o-3' };
    const store = Object.assign(
      new MemoryStore().add('o-1', success).add('o-2', { ...success, orderNo: 'o-2' }),
      {
        outcomeStays: (attempt: StoredAttempt) => attempt.orderNo === 'o-1',
      },
    );
    store.add('o-3', pending);
    store.finalOutcomesStay = false;
    expect((await recordOutcome(store, success)).kind).toBe('duplicate');
    expect((await recordOutcome(store, failure)).kind).toBe('stale');
    expect(store.exclusives).toEqual([]);
    expect((await recordOutcome(store, { ...success, orderNo: 'o-2' })).kind).toBe('duplicate');
    expect((await recordOutcome(store, pending)).kind).toBe('duplicate');
    expect(store.exclusives).toEqual(['o-2', 'o-3']);
    expect(store.unchanged).toEqual(['o-1:succeeded', 'o-1:succeeded', 'o-2:succeeded', 'o-3:pending']);
  });

  it('an attempt still open is decided under the exclusive section, even for a repeated outcome', async () => {
    const pending: PaymentOutcome = { status: 'pending', orderNo: 'o-1' };
    const store = new MemoryStore().add('o-1', pending);
    expect((await recordOutcome(store, pending)).kind).toBe('duplicate');
    expect((await recordOutcome(store, success)).kind).toBe('changed');
    expect(store.exclusives).toEqual(['o-1', 'o-1']);
    expect(store.changes).toEqual(['o-1:succeeded']);
  });

  it('a settled attempt with an outcome about another amount is still decided and alerted under the section', async () => {
    const store = new MemoryStore().add('o-1', success);
    expect((await recordOutcome(store, { ...success, amount: '11.00' })).kind).toBe('mismatch');
    expect(store.exclusives).toEqual(['o-1']);
    expect(store.alerts.map((alert) => alert.kind)).toEqual(['amount-mismatch']);
  });

  it('an unknown orderNo goes through the section and is reported as paid but not applied', async () => {
    const store = new MemoryStore();
    expect((await recordOutcome(store, success)).kind).toBe('unknown-attempt');
    expect(store.exclusives).toEqual(['o-1']);
    expect(store.alerts.map((alert) => alert.kind)).toEqual(['paid-not-applied']);
  });
});

describe('recordOutcome: onlyWhile (an outcome judged on an earlier read of the attempt)', () => {
  const failure: PaymentOutcome = {
    status: 'failed',
    orderNo: 'o-1',
    reason: 'no record',
    code: 'NO_GATEWAY_RECORD',
  };
  const acknowledged: PaymentOutcome = { status: 'pending', orderNo: 'o-1', tradeNo: 'T1' };
  /** The rule the reconciliation gives: only while the gateway has given the attempt no trade. */
  const withoutTrade = (attempt: StoredAttempt) => !attempt.outcome?.tradeNo;

  it('is asked of the attempt found under the exclusive section: moved there since the read, the change is held back', async () => {
    // Another writer records the gateway's answer just before this one enters the section.
    class AnsweredFirst extends MemoryStore {
      override exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
        this.add(orderNo, acknowledged);
        return super.exclusive(orderNo, work);
      }
    }
    const store = new AnsweredFirst().add('o-1', { status: 'unknown', orderNo: 'o-1', reason: 'lost' });
    const seen: (string | undefined)[] = [];
    const decision = await recordOutcome(store, failure, {
      onlyWhile: (attempt) => {
        seen.push(attempt.outcome?.tradeNo);
        return withoutTrade(attempt);
      },
    });
    expect(decision).toMatchObject({ kind: 'held-back', next: failure });
    expect(seen).toEqual(['T1']);
    expect(store.attempts.get('o-1')?.outcome).toEqual(acknowledged);
    expect(store.changes).toEqual([]);
  });

  it('is asked again of the attempt read anew after a lost save', async () => {
    class LosesToAnswer extends MemoryStore {
      override async save(attempt: StoredAttempt, next: PaymentOutcome) {
        if (this.conflicts > 0) this.add(attempt.orderNo, acknowledged);
        return super.save(attempt, next);
      }
    }
    const store = new LosesToAnswer().add('o-1', { status: 'unknown', orderNo: 'o-1', reason: 'lost' });
    store.conflicts = 1;
    expect((await recordOutcome(store, failure, { onlyWhile: withoutTrade })).kind).toBe('held-back');
    expect(store.statusOf('o-1')).toBe('pending');
  });

  it('still true: the change is made; unchanged decisions are answered as always, on both paths', async () => {
    const store = new MemoryStore().add('o-1', { status: 'unknown', orderNo: 'o-1', reason: 'lost' });
    expect((await recordOutcome(store, failure, { onlyWhile: withoutTrade })).kind).toBe('changed');
    expect(store.changes).toEqual(['o-1:failed']);
    const never = () => false;
    // A final attempt (plain read) and an open one (under the section): duplicate and stale as before.
    expect((await recordOutcome(store, failure, { onlyWhile: never })).kind).toBe('duplicate');
    const open = new MemoryStore().add('o-1', acknowledged);
    expect(
      (await recordOutcome(open, { status: 'unknown', orderNo: 'o-1', reason: 'r' }, { onlyWhile: never }))
        .kind,
    ).toBe('stale');
  });

  it('a final attempt the outcome would move is decided under the section too: the plain read cannot pass it by', async () => {
    const store = new MemoryStore().add('o-1', { ...failure, tradeNo: 'T1' });
    const success: PaymentOutcome = { status: 'succeeded', orderNo: 'o-1', amount: '10.00', currency: 'USD' };
    expect((await recordOutcome(store, success, { onlyWhile: withoutTrade })).kind).toBe('held-back');
    expect(store.exclusives).toEqual(['o-1']);
    expect(store.statusOf('o-1')).toBe('failed');
  });
});

describe('handleReturn', () => {
  const returned = (orderNo: string, fields: Record<string, string> = {}, account = MAIN) =>
    signedReturnQuery(
      {
        code: '0000',
        gatewayNo: account.gatewayNo,
        orderNo,
        tradeNo: 'T1',
        orderAmount: '10.00',
        orderCurrency: 'USD',
        orderStatus: 'success',
        orderInfo: 'Approved',
        ...fields,
      },
      account.signKey,
    );
  const handle = (
    main: MemoryStore,
    query: URLSearchParams | string,
    ledger = new Ledger().add('T1', 'o-1'),
  ) =>
    handleReturn({
      query,
      accounts: [MAIN, SECOND],
      storeFor: (account) => (account === MAIN ? main : new MemoryStore()),
      logger: silent,
      storefrontUrl: (attempt, status) =>
        `https://shop.example/done?order=${attempt.orderNo}&status=${status}`,
      tradeRecord: (_account, tradeNo) => ledger.record(tradeNo),
    });

  it('a store that can only record the outcome later (RecordLaterError): the callback is answered failed and delivered again, the return sends the shopper on as the attempt stands', async () => {
    class WaitingStore extends MemoryStore {
      override async save(): Promise<boolean> {
        throw new RecordLaterError('another payment of the order is answering');
      }
    }
    const main = new WaitingStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    const logged = { warn: [] as string[], error: [] as string[] };
    const logger = {
      info() {},
      warn: (line: string) => logged.warn.push(line),
      error: (line: string) => logged.error.push(line),
    };
    const { body, headers } = signedCallback({
      gatewayNo: MAIN.gatewayNo,
      signKey: MAIN.signKey,
      body: { type: 'transaction.success', data: callbackData('o-1') },
    });
    const delivered = await handleCallback({
      rawBody: body,
      headers,
      accounts: [MAIN],
      storeFor: () => main,
      logger,
    });
    expect(delivered.answer).toEqual({ status: 500, body: 'error' });
    const back = await handleReturn({
      query: returned('o-1'),
      accounts: [MAIN],
      storeFor: () => main,
      logger,
      storefrontUrl: (attempt, status) =>
        `https://shop.example/done?order=${attempt.orderNo}&status=${status}`,
      tradeRecord: (_account, tradeNo) => new Ledger().add('T1', 'o-1').record(tradeNo),
    });
    expect(back.answer).toEqual({
      status: 303,
      body: '',
      location: 'https://shop.example/done?order=o-1&status=redirect',
    });
    expect(main.statusOf('o-1')).toBe('redirect');
    expect(logged.warn.filter((line) => line.includes('not recorded yet'))).toHaveLength(2);
    expect(logged.error).toEqual([]);
  });

  it("attack: a paid order's return with a character moved from its orderNo to its orderInfo (the signature cannot tell) does not pay another order; the gateway's record of the trade decides", async () => {
    // Order codes of different lengths: one orderNo ends another.
    const main = new MemoryStore()
      .add('57-1', { status: 'redirect', orderNo: '57-1', redirectUrl: 'x' })
      .add('157-1', { status: 'redirect', orderNo: '157-1', redirectUrl: 'x' });
    const ledger = new Ledger().add('T9', '157-1');
    const paid = returned('157-1', { tradeNo: 'T9', orderInfo: 'Approved' });
    const shifted = new URLSearchParams(paid);
    shifted.set('orderInfo', 'Approved1');
    shifted.set('orderNo', '57-1');
    expect(shifted.get('signInfo')).toBe(paid.get('signInfo'));
    const forged = await handle(main, shifted, ledger);
    expect(forged.answer).toEqual({ status: 401, body: 'invalid signature' });
    expect(forged.result).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('orderNo 157-1'),
    });
    expect(main.statusOf('57-1')).toBe('redirect');
    // The honest return pays its own order.
    expect((await handle(main, paid, ledger)).answer.location).toContain('order=157-1&status=succeeded');
    expect(main.statusOf('157-1')).toBe('succeeded');
    // A trade the gateway does not have (yet): nothing recorded, the shopper sent on as it stands.
    const unknownTrade = await handle(main, returned('57-1', { tradeNo: 'T-none' }), ledger);
    expect(unknownTrade.answer.location).toContain('order=57-1&status=redirect');
    expect(unknownTrade.result.kind).toBe('unconfirmed');
    expect(main.statusOf('57-1')).toBe('redirect');
  });

  it('attack: the shifted return sent while its target attempt is being inserted (no attempt at the first read) is held back, not recorded unconfirmed (found by review)', async () => {
    // The first read finds nothing (no confirmation asked); the attempt is there under the lock.
    class AppearsLater extends MemoryStore {
      private reads = 0;
      override async find(orderNo: string) {
        this.reads += 1;
        return this.reads === 1 ? undefined : super.find(orderNo);
      }
    }
    const main = new AppearsLater().add('57-1');
    const ledger = new Ledger().add('T9', '157-1');
    const paid = returned('157-1', { tradeNo: 'T9', orderInfo: 'Approved' });
    const shifted = new URLSearchParams(paid);
    shifted.set('orderInfo', 'Approved1');
    shifted.set('orderNo', '57-1');
    const raced = await handle(main, shifted, ledger);
    expect(raced.result.kind).toBe('held-back');
    expect(raced.answer.location).toContain('order=57-1&status=pending');
    expect(main.statusOf('57-1')).toBeUndefined();
    expect(main.changes).toEqual([]);
  });

  it("a confirmed return keeps the return's masked card number (the gateway's record lists none), and only in its masked shape", async () => {
    const main = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    await handle(main, returned('o-1', { maskCardNo: '424242***4242' }));
    expect(main.attempts.get('o-1')?.outcome).toMatchObject({
      status: 'succeeded',
      maskCardNo: '424242***4242',
    });
    const other = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    await handle(other, returned('o-1', { maskCardNo: 'not-a-mask' }));
    expect(other.attempts.get('o-1')?.outcome?.maskCardNo).toBeUndefined();
  });

  it("a return is recorded as the gateway's record says; the gateway unreachable: nothing recorded, the shopper sent on with the status as it stands; nothing changing: not asked", async () => {
    const main = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    const ledger = new Ledger().add('T1', 'o-1', 'pending');
    ledger.down = new Error('connect ECONNREFUSED');
    const unreachable = await handle(main, returned('o-1'), ledger);
    expect(unreachable.answer.location).toContain('status=redirect');
    expect(unreachable.result.kind).toBe('unconfirmed');
    expect(main.statusOf('o-1')).toBe('redirect');
    ledger.down = undefined;
    // The return says success, the gateway's record still pending: pending is recorded.
    expect((await handle(main, returned('o-1'), ledger)).answer.location).toContain('status=pending');
    expect(main.statusOf('o-1')).toBe('pending');
    ledger.add('T1', 'o-1', 'success');
    expect((await handle(main, returned('o-1'), ledger)).answer.location).toContain('status=succeeded');
    // The same return again changes nothing and asks the gateway nothing more.
    const asked = ledger.asked.length;
    expect((await handle(main, returned('o-1'), ledger)).result.kind).toBe('duplicate');
    expect(ledger.asked).toHaveLength(asked);
  });

  it('records the outcome and redirects with the status after it; a stale fail still shows success', async () => {
    const main = new MemoryStore().add('o-1');
    const first = await handle(main, returned('o-1'));
    expect(first.answer).toEqual({
      status: 303,
      body: '',
      location: 'https://shop.example/done?order=o-1&status=succeeded',
    });
    const late = await handle(main, returned('o-1', { orderStatus: 'fail' }));
    expect(late.answer.location).toContain('status=succeeded');
  });

  it('edited query: 401; unknown orderNo: 404; mismatch: redirect with the unchanged status', async () => {
    const main = new MemoryStore().add('o-1', { status: 'redirect', orderNo: 'o-1', redirectUrl: 'x' });
    const edited = returned('o-1');
    edited.set('orderAmount', '0.01');
    expect((await handle(main, edited)).answer).toEqual({ status: 401, body: 'invalid signature' });
    expect((await handle(main, returned('nobody'))).answer).toEqual({ status: 404, body: 'unknown order' });
    const mismatch = await handle(main, returned('o-1', { orderAmount: '0.01' }));
    expect(mismatch.answer.location).toContain('status=redirect');
    expect(main.statusOf('o-1')).toBe('redirect');
    // A return alerts nobody: the callback and the reconciliation report the same money.
    expect(main.alerts).toEqual([]);
  });

  it("attack: a shopper's signed return replayed at will (it never expires) raises no merchant alert", async () => {
    const main = new MemoryStore().add('o-1');
    // Another method's store knows no attempt of this orderNo; the same for an orderNo of nobody.
    const elsewhere = new MemoryStore();
    const atAnotherMethod = (query: URLSearchParams) =>
      handleReturn({
        query,
        accounts: [MAIN],
        storeFor: () => elsewhere,
        logger: silent,
        storefrontUrl: () => 'https://shop.example/done',
        tradeRecord: (_account, tradeNo) => new Ledger().record(tradeNo),
      });
    for (let replay = 0; replay < 3; replay++) {
      expect((await atAnotherMethod(returned('o-1'))).answer).toEqual({ status: 404, body: 'unknown order' });
      expect((await handle(main, returned('o-1', { orderAmount: '0.01' }))).result.kind).toBe('mismatch');
    }
    expect(elsewhere.alerts).toEqual([]);
    expect(main.alerts).toEqual([]);
    // The same outcome from the gateway's callback is alerted.
    expect((await callback(storesWith(elsewhere), { data: callbackData('o-1') })).result.kind).toBe(
      'unknown-attempt',
    );
    expect(elsewhere.alerts.map((alert) => alert.kind)).toEqual(['paid-not-applied']);
  });
});
