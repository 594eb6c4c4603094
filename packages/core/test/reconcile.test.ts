/**
 * Reconciliation (docs/gateway-protocol.md#reconciliation) with a real client against the local HTTP
 * gateway: the gateway's record gives the outcome a callback would have given, and recordOutcome takes
 * the decision (amount check, monotonic merge) exactly as for a callback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALREADY_PAID_REASON,
  ANSWERED_WHILE_ASKED,
  GatewayClient,
  gatewayAcknowledged,
  NO_GATEWAY_RECORD,
  PAGE_EXPIRED,
  type PaymentOutcome,
  reconcileAndRecord,
  reconcileAttempt,
  reconcileRefund,
  reconciliationRecordOptions,
  recordOutcome,
  type StoredAttempt,
  stillAsJudged,
  storedAnswerOf,
} from '../src/index.js';
import { envelope, startTestGateway, type TestGateway } from './support/http-gateway.js';
import { MemoryAttempts } from './support/memory-attempts.js';

const gatewayNo = '12345678';
const signKey = 'reconcile-sign-key';
const MINUTE = 60_000;
const now = new Date('2024-05-01T12:00:00Z');

let gateway: TestGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({
    gatewayNo,
    signKey,
    baseUrl: gateway.url,
    retryBaseDelayMs: 5,
    timeoutMs: 2_000,
  });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

const attempt = {
  orderNo: 'order_1-a2',
  sentAt: new Date(now.getTime() - 45 * MINUTE),
  orderAmount: '10.00',
  currency: 'USD',
};

const record = (overrides: Record<string, unknown> = {}) => ({
  orderNo: attempt.orderNo,
  tradeNo: '2024050111150012345678',
  tradeDate: '2024-05-01 11:15:02',
  tradeStatus: 'success',
  tradeInfo: 'Transaction Approved',
  tradeAmount: '10.00',
  tradeCurrency: 'USD',
  ...overrides,
});

/** The gateway answers the transactions query with these records. */
function records(...list: unknown[]) {
  gateway.handle((_req, res) =>
    envelope(res, '00000', { page: { total: list.length, pageSize: 100, pageIndex: 1 }, list }),
  );
}

/** The attempt of these tests, in memory, with `outcome` stored. */
class MemoryStore extends MemoryAttempts {
  constructor(outcome?: PaymentOutcome) {
    super(attempt, outcome);
  }
}

/** Records `failure` (the attempt ends failed), then a late success, which still wins. */
async function expectFailedThenLateSuccess(store: MemoryStore, failure: PaymentOutcome): Promise<void> {
  expect((await recordOutcome(store, failure)).kind).toBe('changed');
  expect(store.status()).toBe('failed');
  await recordOutcome(store, {
    orderNo: attempt.orderNo,
    status: 'succeeded',
    amount: '10.00',
    currency: 'USD',
  });
  expect(store.status()).toBe('succeeded');
}

const unknownOutcome: PaymentOutcome = { orderNo: attempt.orderNo, status: 'unknown', reason: 'answer lost' };

describe('reconcileAttempt', () => {
  it('a recorded success: the outcome a success callback gives, recorded once', async () => {
    records(record());
    const result = await reconcileAttempt(client, attempt, { now });
    expect(result).toEqual({
      orderNo: attempt.orderNo,
      outcome: {
        orderNo: attempt.orderNo,
        status: 'succeeded',
        tradeNo: '2024050111150012345678',
        orderInfo: 'Transaction Approved',
        maskCardNo: undefined,
        amount: '10.00',
        currency: 'USD',
      },
      reason: 'the gateway recorded trade 2024050111150012345678 as success',
    });
    // Asked by orderNo, a day either side of sentAt (UTC), one page large enough for the orderNo's trades.
    const query = Object.fromEntries(new URL(gateway.requests[0]!.url, 'http://gateway').searchParams);
    expect(gateway.requests[0]!.url.split('?')[0]).toBe('/V2022-03/transactions');
    expect(query).toEqual({
      startTime: '2024-04-30T11:15:00',
      endTime: '2024-05-02T11:15:00',
      orderNo: attempt.orderNo,
      pageIndex: '1',
      pageSize: '100',
    });
    const store = new MemoryStore(unknownOutcome);
    expect((await recordOutcome(store, result.outcome!)).kind).toBe('changed');
    expect(store.status()).toBe('succeeded');
    // A second run (or the late callback) is a duplicate.
    expect((await recordOutcome(store, result.outcome!)).kind).toBe('duplicate');
  });

  it('a recorded failure: failed with the gateway text as reason, redacted', async () => {
    records(record({ tradeStatus: 'fail', tradeInfo: 'Declined: card 4000000000009995 expired' }));
    const { outcome } = await reconcileAttempt(client, attempt, { now });
    expect(outcome).toMatchObject({ status: 'failed', reason: 'Declined: card 400000***9995 expired' });
    expect(JSON.stringify(outcome)).not.toContain('4000000000009995');
    const store = new MemoryStore(unknownOutcome);
    await recordOutcome(store, outcome!);
    expect(store.status()).toBe('failed');
  });

  it('a record of another amount passes through: recordOutcome refuses it and alerts, the attempt unchanged', async () => {
    records(record({ tradeAmount: '100.00' }));
    const result = await reconcileAttempt(client, attempt, { now });
    expect(result.outcome).toMatchObject({ status: 'succeeded', amount: '100.00', currency: 'USD' });
    expect(result.reason).toContain('(for 100.00 USD; 10.00 USD was sent)');
    const store = new MemoryStore(unknownOutcome);
    expect((await recordOutcome(store, result.outcome!)).kind).toBe('mismatch');
    expect(store.status()).toBe('unknown');
    expect(store.alerts.map((alert) => alert.kind)).toEqual(['amount-mismatch']);
  });

  it('the same amount written differently is not called another amount', async () => {
    records(record({ tradeAmount: 10.5, tradeCurrency: 'usd' }));
    const result = await reconcileAttempt(client, { ...attempt, orderAmount: '10.50' }, { now });
    expect(result.reason).toBe('the gateway recorded trade 2024050111150012345678 as success');
  });

  it('no record, sent longer ago than pendingAfterMs: failed, nothing was charged', async () => {
    records();
    const result = await reconcileAttempt(client, attempt, { now });
    expect(result.outcome).toEqual({
      orderNo: attempt.orderNo,
      status: 'failed',
      reason: NO_GATEWAY_RECORD,
      code: 'NO_GATEWAY_RECORD',
    });
    expect(result.reason).toBe(
      'the gateway has no record of this payment 45 minutes after it was sent: nothing was charged',
    );
    // Were the record late after all, its success still wins (monotonic merge).
    await expectFailedThenLateSuccess(new MemoryStore(unknownOutcome), result.outcome!);
  });

  it('no record of a recent attempt: nothing to record yet, still pending', async () => {
    records();
    const recent = { ...attempt, sentAt: new Date(now.getTime() - 10 * MINUTE) };
    const result = await reconcileAttempt(client, recent, { now });
    expect(result.outcome).toBeUndefined();
    expect(result.reason).toBe(
      'the gateway has no record of this payment yet; it was sent 600 s ago, so it is still pending',
    );
    // The threshold is the caller's to choose.
    const sooner = await reconcileAttempt(client, recent, { now, pendingAfterMs: 5 * MINUTE });
    expect(sooner.outcome).toMatchObject({ status: 'failed', reason: NO_GATEWAY_RECORD });
  });

  it("a list of other orders' trades proves nothing: the gateway did not filter, nothing is failed", async () => {
    records(record({ orderNo: 'order_1-a1' }), record({ orderNo: 'ORDER_1-A2' }));
    const result = await reconcileAttempt(client, attempt, { now });
    expect(result.outcome).toBeUndefined();
    expect(result.reason).toBe(
      "the gateway's answer listed 2 trade(s) of other orders, not this one; it proves nothing, left as it is",
    );
    // An empty page that says it holds more than it lists is no proof either.
    gateway.handle((_req, res) =>
      envelope(res, '00000', { page: { total: 250, pageSize: 100, pageIndex: 1 }, list: [] }),
    );
    expect((await reconcileAttempt(client, attempt, { now })).outcome).toBeUndefined();
  });

  describe('an attempt the gateway acknowledged (a pending answer, a trade id, "already paid")', () => {
    const tradeNo = '2024050111150012345678';
    /** The transactions list answers `listed`; the trade query answers the record or P0002. */
    function gatewayWith(listed: unknown[], trade: Record<string, unknown> | undefined) {
      gateway.handle((req, res) => {
        if (req.url?.startsWith('/V2022-03/orderInfo/')) {
          if (trade) envelope(res, '00000', trade);
          else envelope(res, 'P0002', null, `tradeNo ${tradeNo} does not exist`);
          return;
        }
        envelope(res, '00000', { page: { total: listed.length, pageSize: 100, pageIndex: 1 }, list: listed });
      });
    }

    it('no record anywhere, long after: left open for a person, never failed (it may have been charged)', async () => {
      gatewayWith([], undefined);
      for (const stored of [
        { status: 'pending' as const },
        { status: 'unknown' as const, code: 'I0061' },
        { status: 'pending' as const, tradeNo },
      ]) {
        const result = await reconcileAttempt(client, { ...attempt, stored }, { now });
        expect(result.outcome).toBeUndefined();
        expect(result.attention).toBe(true);
        expect(result.reason).toMatch(
          /^the gateway acknowledged this payment .* but has no record of it 45 minutes after it was sent: left open so it is not paid twice; look it up in the merchant portal$/,
        );
      }
      // The trade it gave is asked for by its id once the list has nothing.
      expect(gateway.requests.map((request) => request.url.split('?')[0])).toEqual([
        '/V2022-03/transactions',
        '/V2022-03/transactions',
        '/V2022-03/transactions',
        `/V2022-03/orderInfo/${tradeNo}`,
      ]);
      // Sent with no answer, or answered without a trade: no record still means nothing was charged.
      const unanswered = await reconcileAttempt(
        client,
        { ...attempt, stored: { status: 'unknown' } },
        { now },
      );
      expect(unanswered.outcome).toMatchObject({ status: 'failed', reason: NO_GATEWAY_RECORD });
      expect(unanswered.attention).toBeUndefined();
    });

    it('"already paid" is known by its code, or by its reason where a store kept only the text', () => {
      expect(
        storedAnswerOf({ orderNo: 'o', status: 'unknown', reason: 'answer lost', code: 'I0061' }).code,
      ).toBe('I0061');
      const textOnly = storedAnswerOf({ orderNo: 'o', status: 'unknown', reason: ALREADY_PAID_REASON });
      expect(textOnly).toEqual({ status: 'unknown', tradeNo: undefined, code: 'I0061' });
      expect(gatewayAcknowledged(textOnly)).toBe(true);
      expect(
        gatewayAcknowledged(storedAnswerOf({ orderNo: 'o', status: 'unknown', reason: 'timeout' })),
      ).toBe(false);
      expect(gatewayAcknowledged(storedAnswerOf(undefined))).toBe(false);
    });

    it('the list misses it but the trade query has it: its outcome, recorded as a callback would be', async () => {
      gatewayWith([], record({ tradeNo }));
      const result = await reconcileAttempt(
        client,
        { ...attempt, stored: { status: 'pending', tradeNo } },
        { now },
      );
      expect(result.outcome).toMatchObject({
        status: 'succeeded',
        tradeNo,
        amount: '10.00',
        currency: 'USD',
      });
      const store = new MemoryStore({ orderNo: attempt.orderNo, status: 'pending', tradeNo });
      expect((await recordOutcome(store, result.outcome!)).kind).toBe('changed');
      expect(store.status()).toBe('succeeded');
    });

    it("a trade query answering another order's trade: unreadable, nothing recorded", async () => {
      gatewayWith([], record({ tradeNo, orderNo: 'order_9-a1' }));
      const result = await reconcileAttempt(
        client,
        { ...attempt, stored: { status: 'pending', tradeNo } },
        { now },
      );
      expect(result.outcome).toBeUndefined();
      expect(result.reason).toMatch(/could not be read \(trade .* is recorded for another orderNo\)/);
    });
  });

  describe("a redirect (the shopper was sent to the gateway's page)", () => {
    const stored = { status: 'redirect' as const, tradeNo: 'T-page' };

    it('attack: a page the gateway lists as failed "already paid" (I0061) is never failed as expired: left open for a person', async () => {
      records(record({ tradeNo: 'T-page', tradeStatus: 'fail', tradeInfo: 'I0061:Duplicate Order' }));
      const found = await reconcileAttempt(client, { ...attempt, stored }, { now });
      expect(found.outcome).toMatchObject({ status: 'unknown', code: 'I0061' });
      expect(found.attention).toBe(true);
      expect(found.reason).toContain('already paid (I0061)');
    });

    it('the page listed as pending: nothing recorded while it may be in use, failed once it has expired', async () => {
      records(record({ tradeNo: 'T-page', tradeStatus: 'pending' }));
      const recent = { ...attempt, sentAt: new Date(now.getTime() - 10 * MINUTE), stored };
      const onPage = await reconcileAttempt(client, recent, { now });
      expect(onPage.outcome).toBeUndefined();
      expect(onPage.reason).toBe(
        'the gateway recorded trade T-page as pending: the shopper has not paid on its page (yet)',
      );
      // 45 minutes on (longer than the pages live): failed, so the page is not asked about for ever.
      const expired = await reconcileAttempt(client, { ...attempt, stored }, { now });
      expect(expired.outcome).toEqual({
        orderNo: attempt.orderNo,
        status: 'failed',
        reason: PAGE_EXPIRED,
        code: 'PAGE_EXPIRED',
        tradeNo: 'T-page',
      });
      expect(expired.reason).toBe(
        `the gateway still lists trade T-page as pending 45 minutes after the shopper was sent to its page: ${PAGE_EXPIRED}`,
      );
      const store = new MemoryStore({
        orderNo: attempt.orderNo,
        status: 'redirect',
        redirectUrl: 'https://gw/pay/T-page',
      });
      // Paid there after all: the payment's report still wins.
      await expectFailedThenLateSuccess(store, expired.outcome!);
    });

    it('paid or failed on the page: recorded; no record long after: failed (a redirect holds nothing open)', async () => {
      records(record({ tradeNo: 'T-page' }));
      expect((await reconcileAttempt(client, { ...attempt, stored }, { now })).outcome).toMatchObject({
        status: 'succeeded',
      });
      gateway.handle((req, res) => {
        if (req.url?.startsWith('/V2022-03/orderInfo/')) envelope(res, 'P0002', null, 'no such trade');
        else envelope(res, '00000', { page: { total: 0, pageSize: 100, pageIndex: 1 }, list: [] });
      });
      const gone = await reconcileAttempt(client, { ...attempt, stored }, { now });
      expect(gone.outcome).toMatchObject({ status: 'failed', reason: NO_GATEWAY_RECORD });
      expect(gone.attention).toBeUndefined();
    });
  });

  describe('a page whose answer never arrived (found by a crash-window review)', () => {
    const pending = () => records(record({ tradeNo: 'T-page', tradeStatus: 'pending' }));

    it('hosted or local, stored unknown or nothing: expires like a redirect, never left pending for ever', async () => {
      pending();
      for (const flow of ['hosted', 'local'] as const) {
        for (const stored of [undefined, { status: 'unknown' as const }]) {
          const young = await reconcileAttempt(
            client,
            { ...attempt, flow, stored, sentAt: new Date(now.getTime() - 10 * MINUTE) },
            { now },
          );
          expect(young.outcome, flow).toBeUndefined();
          const old = await reconcileAttempt(client, { ...attempt, flow, stored }, { now });
          expect(old.outcome, flow).toEqual({
            orderNo: attempt.orderNo,
            status: 'failed',
            reason: PAGE_EXPIRED,
            code: 'PAGE_EXPIRED',
            tradeNo: 'T-page',
          });
          expect(old.judgedOn).toEqual({ status: 'unknown' });
          expect(old.reason).toContain('the answer naming the page never arrived');
          // Before: the pending trade was recorded as pending, and the attempt stayed open for good.
          const store = new MemoryStore(stored ? unknownOutcome : undefined);
          const decision = await recordOutcome(
            store,
            old.outcome!,
            reconciliationRecordOptions(old, (a: StoredAttempt) => storedAnswerOf(a.outcome)),
          );
          expect(decision.kind).toBe('changed');
          expect(store.status()).toBe('failed');
        }
      }
    });

    it('attack: an answer recorded meanwhile (a pending callback naming the trade) holds the expiry back', () => {
      const expired = {
        orderNo: attempt.orderNo,
        outcome: {
          orderNo: attempt.orderNo,
          status: 'failed' as const,
          reason: PAGE_EXPIRED,
          code: 'PAGE_EXPIRED',
          tradeNo: 'T-page',
        },
        reason: 'expired',
        judgedOn: { status: 'unknown' as const },
      };
      expect(stillAsJudged(expired, { status: 'unknown' })).toBe(true);
      expect(stillAsJudged(expired, { status: 'pending', tradeNo: 'T-page' })).toBe(false);
      expect(stillAsJudged(expired, { status: 'redirect', tradeNo: 'T-page' })).toBe(false);
      expect(stillAsJudged(expired, { status: 'succeeded', tradeNo: 'T-page' })).toBe(false);
    });

    it('a page the shopper was told about by a pending answer, an "already paid" answer, or no flow given: recorded pending as before', async () => {
      pending();
      for (const input of [
        { flow: 'local' as const, stored: { status: 'pending' as const, tradeNo: 'T-page' } },
        { flow: 'hosted' as const, stored: { status: 'unknown' as const, code: 'I0061' } },
        { stored: { status: 'unknown' as const } },
      ]) {
        const found = await reconcileAttempt(client, { ...attempt, ...input }, { now });
        expect(found.outcome, JSON.stringify(input)).toMatchObject({ status: 'pending', tradeNo: 'T-page' });
        expect(found.attention).toBeUndefined();
      }
    });

    it('a card charge still pending long after it was sent: recorded, and flagged for a person on every run', async () => {
      pending();
      for (const stored of [
        undefined,
        { status: 'unknown' as const },
        { status: 'pending' as const, tradeNo: 'T-page' },
      ]) {
        const found = await reconcileAttempt(client, { ...attempt, flow: 'card', stored }, { now });
        expect(found.outcome).toMatchObject({ status: 'pending', tradeNo: 'T-page' });
        expect(found.attention).toBe(true);
        expect(found.reason).toMatch(
          /still lists trade T-page as pending 45 minutes after the card charge was sent/,
        );
      }
      const young = await reconcileAttempt(
        client,
        { ...attempt, flow: 'card', sentAt: new Date(now.getTime() - 10 * MINUTE) },
        { now },
      );
      expect(young.attention).toBeUndefined();
    });
  });

  it('several trades of one orderNo: a success outweighs a failure, a pending one a failure', async () => {
    records(
      record({ tradeNo: 'T1', tradeStatus: 'fail' }),
      record({ tradeNo: 'T2' }),
      record({ tradeNo: 'T3', tradeStatus: 'pending' }),
    );
    expect((await reconcileAttempt(client, attempt, { now })).outcome).toMatchObject({
      status: 'succeeded',
      tradeNo: 'T2',
    });
    records(
      record({ tradeNo: 'T1', tradeStatus: 'fail' }),
      record({ tradeNo: 'T3', tradeStatus: 'pending' }),
    );
    expect((await reconcileAttempt(client, attempt, { now })).outcome).toMatchObject({
      status: 'pending',
      tradeNo: 'T3',
    });
  });

  it('a record with a status core does not know: nothing recorded, the reason names it', async () => {
    records(record({ tradeStatus: 'under review' }));
    const result = await reconcileAttempt(client, attempt, { now });
    expect(result.outcome).toBeUndefined();
    expect(result.reason).toContain('unrecognised status under review');
  });

  it('a query that fails: nothing recorded, the reason says why (no card data)', async () => {
    gateway.handle((_req, res) => envelope(res, 'L0005', null, 'check sign info error'));
    const refused = await reconcileAttempt(client, attempt, { now });
    expect(refused.outcome).toBeUndefined();
    expect(refused.reason).toMatch(
      /^the gateway's records could not be read \(.*sign info.*\); try again later$/,
    );

    gateway.handle((_req, res) => {
      res.writeHead(502);
      res.end('upstream 4242424242424242');
    });
    const down = await reconcileAttempt(client, attempt, { now });
    expect(down.outcome).toBeUndefined();
    expect(down.reason).not.toContain('4242424242424242');
    // A read: retried twice before giving up.
    expect(gateway.requests).toHaveLength(4);
  });

  it('an orderNo the query cannot carry, or no valid sentAt: nothing recorded, nothing sent', async () => {
    const tooLong = await reconcileAttempt(client, { ...attempt, orderNo: 'o'.repeat(51) }, { now });
    expect(tooLong.outcome).toBeUndefined();
    expect(tooLong.reason).toMatch(/orderNo/);
    const noTime = await reconcileAttempt(client, { ...attempt, sentAt: new Date('not a date') }, { now });
    expect(noTime).toEqual({
      orderNo: attempt.orderNo,
      outcome: undefined,
      reason: 'the attempt has no valid sending time',
    });
    expect(gateway.requests).toHaveLength(0);
  });
});

/**
 * The job reads the attempt, then asks the gateway (minutes later, one attempt after another): an answer
 * recorded meanwhile must not be failed by what the read said (found by review).
 */
describe('a failure judged on what the attempt had stored, recorded after the attempt was answered', () => {
  const tradeNo = 'T-late';
  const lateAnswers: PaymentOutcome[] = [
    { orderNo: attempt.orderNo, status: 'pending', tradeNo, amount: '10.00', currency: 'USD' },
    { orderNo: attempt.orderNo, status: 'pending' },
  ];
  /** How the adapters read their attempt's stored answer (Medusa's way; Vendure reads its row). */
  const recordOptionsOf = (found: Awaited<ReturnType<typeof reconcileAttempt>>) =>
    reconciliationRecordOptions(found, (current: StoredAttempt) => storedAnswerOf(current.outcome));

  /** The gateway lists `listed`; while the list is asked for, `meanwhile` runs (the late callback). */
  function gatewayAnsweringAfter(meanwhile: () => Promise<unknown>, listed: unknown[] = []) {
    gateway.handle(async (req, res) => {
      if (req.url?.startsWith('/V2022-03/orderInfo/')) {
        envelope(res, 'P0002', null, 'no such trade');
        return;
      }
      await meanwhile();
      envelope(res, '00000', { page: { total: listed.length, pageSize: 100, pageIndex: 1 }, list: listed });
    });
  }

  it.each(lateAnswers)(
    'NO_GATEWAY_RECORD read as unanswered, acknowledged meanwhile ($status, trade $tradeNo): held back, the attempt stays open',
    async (late) => {
      const store = new MemoryStore(unknownOutcome);
      const stored = storedAnswerOf(store.outcome());
      gatewayAnsweringAfter(() => recordOutcome(store, late));
      const found = await reconcileAttempt(client, { ...attempt, stored }, { now });
      expect(found.outcome).toMatchObject({ status: 'failed', code: 'NO_GATEWAY_RECORD' });
      expect(found.judgedOn).toEqual({ status: 'unknown', tradeNo: undefined, code: undefined });
      expect(store.status()).toBe('pending');

      const decision = await recordOutcome(store, found.outcome!, recordOptionsOf(found));
      expect(decision.kind).toBe('held-back');
      expect(store.outcome()).toEqual(late);

      // The next run judges the attempt as it now is: acknowledged, left open for a person.
      gatewayAnsweringAfter(async () => undefined);
      const next = await reconcileAttempt(
        client,
        { ...attempt, stored: storedAnswerOf(store.outcome()) },
        { now },
      );
      expect(next.outcome).toBeUndefined();
      expect(next.attention).toBe(true);
    },
  );

  it('reconcileAndRecord: the same judgement in one call, the held-back failure named in its reason', async () => {
    const store = new MemoryStore(unknownOutcome);
    gatewayAnsweringAfter(() => recordOutcome(store, lateAnswers[0]!));
    const { found, decision, reason } = await reconcileAndRecord(
      client,
      store,
      { ...attempt, stored: storedAnswerOf(store.outcome()) },
      { now },
      (current: StoredAttempt) => storedAnswerOf(current.outcome),
    );
    expect(found.outcome).toMatchObject({ code: 'NO_GATEWAY_RECORD' });
    expect(decision?.kind).toBe('held-back');
    expect(reason).toBe(`${found.reason}; ${ANSWERED_WHILE_ASKED}`);
    expect(store.outcome()).toEqual(lateAnswers[0]);

    // A record giving nothing to record: no decision, the record's reason.
    gateway.handle((_req, res) =>
      envelope(res, '00000', { page: { total: 0, pageSize: 100, pageIndex: 1 }, list: [] }),
    );
    const young = await reconcileAndRecord(
      client,
      store,
      { ...attempt, sentAt: new Date(now.getTime() - MINUTE) },
      { now },
      (current: StoredAttempt) => storedAnswerOf(current.outcome),
    );
    expect(young.decision).toBeUndefined();
    expect(young.reason).toBe(young.found.reason);
  });

  it('PAGE_EXPIRED read as an unpaid page, answered pending with a trade meanwhile: held back', async () => {
    const store = new MemoryStore({
      orderNo: attempt.orderNo,
      status: 'redirect',
      redirectUrl: 'https://gw/pay',
    });
    const stored = storedAnswerOf(store.outcome());
    gatewayAnsweringAfter(
      () => recordOutcome(store, lateAnswers[0]!),
      [record({ tradeNo, tradeStatus: 'pending' })],
    );
    const found = await reconcileAttempt(client, { ...attempt, stored }, { now });
    expect(found.outcome).toMatchObject({ status: 'failed', code: 'PAGE_EXPIRED', tradeNo });
    expect(found.judgedOn).toMatchObject({ status: 'redirect' });

    const decision = await recordOutcome(store, found.outcome!, recordOptionsOf(found));
    expect(decision.kind).toBe('held-back');
    expect(store.outcome()).toMatchObject({ status: 'pending', tradeNo });
  });

  it('nothing heard meanwhile: NO_GATEWAY_RECORD and PAGE_EXPIRED still fail the attempt, and a late success still wins', async () => {
    const unanswered = new MemoryStore(unknownOutcome);
    gatewayAnsweringAfter(async () => undefined);
    const none = await reconcileAttempt(
      client,
      { ...attempt, stored: storedAnswerOf(unanswered.outcome()) },
      { now },
    );
    expect((await recordOutcome(unanswered, none.outcome!, recordOptionsOf(none))).kind).toBe('changed');
    expect(unanswered.outcome()).toMatchObject({ status: 'failed', code: 'NO_GATEWAY_RECORD' });

    // Sent with nothing stored at all (the answer never saved): the same.
    const neverHeard = new MemoryStore();
    const unheard = await reconcileAttempt(
      client,
      { ...attempt, stored: storedAnswerOf(undefined) },
      { now },
    );
    expect((await recordOutcome(neverHeard, unheard.outcome!, recordOptionsOf(unheard))).kind).toBe(
      'changed',
    );
    expect(neverHeard.status()).toBe('failed');

    const page = new MemoryStore({
      orderNo: attempt.orderNo,
      status: 'redirect',
      redirectUrl: 'https://gw/pay',
    });
    gatewayAnsweringAfter(async () => undefined, [record({ tradeNo, tradeStatus: 'pending' })]);
    const expired = await reconcileAttempt(
      client,
      { ...attempt, stored: storedAnswerOf(page.outcome()) },
      { now },
    );
    const decision = await recordOutcome(page, expired.outcome!, recordOptionsOf(expired));
    expect(decision.kind).toBe('changed');
    expect(page.outcome()).toMatchObject({ status: 'failed', code: 'PAGE_EXPIRED', tradeNo });
    await recordOutcome(page, {
      orderNo: attempt.orderNo,
      status: 'succeeded',
      amount: '10.00',
      currency: 'USD',
    });
    expect(page.status()).toBe('succeeded');
  });

  it('stillAsJudged: a no-record failure needs an attempt still unacknowledged; an expired page the same unanswered page', async () => {
    const noRecord = {
      orderNo: attempt.orderNo,
      outcome: {
        orderNo: attempt.orderNo,
        status: 'failed' as const,
        reason: NO_GATEWAY_RECORD,
        code: 'NO_GATEWAY_RECORD',
      },
      reason: 'r',
      judgedOn: { status: 'unknown' as const },
    };
    expect(stillAsJudged(noRecord, { status: 'unknown' })).toBe(true);
    expect(stillAsJudged(noRecord, { status: 'unknown', code: 'I0061' })).toBe(false);
    expect(stillAsJudged(noRecord, { status: 'unknown', tradeNo })).toBe(false);
    expect(stillAsJudged(noRecord, { status: 'pending' })).toBe(false);

    const pageExpired = {
      orderNo: attempt.orderNo,
      outcome: {
        orderNo: attempt.orderNo,
        status: 'failed' as const,
        reason: PAGE_EXPIRED,
        code: 'PAGE_EXPIRED',
        tradeNo,
      },
      reason: 'r',
      judgedOn: { status: 'redirect' as const },
    };
    expect(stillAsJudged(pageExpired, { status: 'redirect' })).toBe(true);
    expect(stillAsJudged(pageExpired, { status: 'redirect', tradeNo })).toBe(true);
    expect(stillAsJudged(pageExpired, { status: 'redirect', tradeNo: 'T-other' })).toBe(false);
    expect(stillAsJudged(pageExpired, { status: 'pending', tradeNo })).toBe(false);
    expect(stillAsJudged(pageExpired, { status: 'unknown' })).toBe(false);

    // An outcome from the gateway's record (not judged on the read) is recorded as a callback would be.
    const paid = { orderNo: attempt.orderNo, outcome: undefined, reason: 'r' };
    expect(stillAsJudged(paid, { status: 'pending', tradeNo })).toBe(true);
    expect(reconciliationRecordOptions(paid, () => ({ status: 'pending' }))).toEqual({});
  });
});

describe('reconcileRefund', () => {
  const refund = {
    batchNo: 'B1',
    merTrackNo: 're_1',
    tradeNo: 'T1',
    orderNo: attempt.orderNo,
    refundAmount: '4.00',
    refundCurrency: 'USD',
    refundReason: 'returned',
    refundDate: '2024-05-02 09:00:00',
  };

  it('a settled refund: the event its notification would have given', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { ...refund, refundStatus: 'success' }));
    const result = await reconcileRefund(client, 'B1');
    expect(result.event).toEqual({
      kind: 'refund',
      status: 'succeeded',
      batchNo: 'B1',
      merTrackNo: 're_1',
      tradeNo: 'T1',
      orderNo: attempt.orderNo,
      amount: '4.00',
      currency: 'USD',
      reason: 'returned',
      noticeDate: '2024-05-02 09:00:00',
    });
    expect(result.reason).toBe('the gateway recorded refund B1 as success');
    expect(result.record).toMatchObject({ refundStatus: 'success' });
    expect(gateway.requests[0]!.url).toBe('/V2022-03/refund/B1');
  });

  it('a failed refund: failed, the reason redacted', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', {
        ...refund,
        refundStatus: 'fail',
        refundReason: 'card 4242424242424242 closed',
      }),
    );
    const { event } = await reconcileRefund(client, 'B1');
    expect(event).toMatchObject({ status: 'failed', reason: 'card 424242***4242 closed' });
  });

  it('pending, unrecognised or unreadable: no event, the reason says which', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { ...refund, refundStatus: 'pending' }));
    expect(await reconcileRefund(client, 'B1')).toMatchObject({
      event: undefined,
      reason: 'refund B1 is still pending at the gateway',
    });
    gateway.handle((_req, res) => envelope(res, '00000', { ...refund, refundStatus: 'queued' }));
    expect(await reconcileRefund(client, 'B1')).toMatchObject({
      event: undefined,
      reason: 'refund B1 has the unrecognised status queued; still open',
    });
    gateway.handle((_req, res) => envelope(res, 'P0002', null, 'param is null or incorrect'));
    const unread = await reconcileRefund(client, 'B1');
    expect(unread.event).toBeUndefined();
    expect(unread.record).toBeUndefined();
    expect(unread.reason).toMatch(/^the gateway's record of refund B1 could not be read/);
  });
});
