/**
 * Refund and chargeback notices as typed events, and events of a type core does not know: verified,
 * acknowledged with `success` and logged, never refused (docs/callbacks-and-returns.md#unknown-event-types).
 */
import { describe, expect, it } from 'vitest';
import {
  type AttemptStore,
  type CallbackEvent,
  chargebackEventOf,
  handleCallback,
  isKnownCallbackEventType,
  type MerchantAlert,
  noticeEventOf,
  outcomeFromCallback,
  type PaymentOutcome,
  refundEventOf,
  type StoredAttempt,
  verifyCallback,
} from '../src/index.js';
import { signedCallback } from '../src/testing.js';

const ACCOUNT = { gatewayNo: '12345678', signKey: 'notice-sign-key' };

const trade = { orderNo: 'o-1', tradeNo: 'T1', orderAmount: '10.00', orderCurrency: 'USD' };
const refundData = {
  ...trade,
  reason: 'customer request',
  amount: '4.00',
  batchNo: 'B1',
  noticeDate: '2022-04-26 17:47:18',
  currency: 'USD',
  merTrackNo: 're_1',
};
const chargebackData = {
  ...trade,
  chargebackInfo: { replyDeadline: '2022-05-10', cpdDate: '2022-04-28' },
  reason: 'D4755-Non-Receipt of Goods or Services',
  amount: '10.00',
  batchNo: 'C1',
  noticeDate: '2022-04-26 17:47:18',
  currency: 'USD',
};

/** A verified event, as verifyCallback hands it over. */
function verified(type: string, data: Record<string, unknown>): CallbackEvent {
  const { body, headers } = signedCallback({ ...ACCOUNT, body: { type, data } });
  return verifyCallback({ rawBody: body, headers, ...ACCOUNT });
}

describe('refundEventOf', () => {
  it('refund.success: every documented field', () => {
    expect(refundEventOf(verified('refund.success', refundData))).toEqual({
      kind: 'refund',
      status: 'succeeded',
      batchNo: 'B1',
      merTrackNo: 're_1',
      tradeNo: 'T1',
      orderNo: 'o-1',
      amount: '4.00',
      currency: 'USD',
      reason: 'customer request',
      noticeDate: '2022-04-26 17:47:18',
    });
  });

  it('refund.fail: failed, numbers read as strings, the order currency standing in, the reason redacted', () => {
    const event = refundEventOf(
      verified('refund.fail', {
        ...refundData,
        amount: 4,
        currency: null,
        merTrackNo: '',
        reason: 'Refund refused for card 4242424242424242',
      }),
    );
    expect(event).toMatchObject({ kind: 'refund', status: 'failed', amount: '4', currency: 'USD' });
    expect(event?.merTrackNo).toBeUndefined();
    expect(event?.reason).not.toContain('4242424242424242');
    expect(event?.reason).toContain('424242***4242');
  });

  it('is undefined for every other event', () => {
    for (const type of ['transaction.success', 'chargeback.success', 'refund.pending', 'refund.']) {
      expect(refundEventOf(verified(type, refundData))).toBeUndefined();
    }
  });
});

describe('chargebackEventOf', () => {
  it('chargeback.success: the deadlines from chargebackInfo, the reason kept (redacted)', () => {
    expect(chargebackEventOf(verified('chargeback.success', chargebackData))).toEqual({
      kind: 'chargeback',
      batchNo: 'C1',
      tradeNo: 'T1',
      orderNo: 'o-1',
      amount: '10.00',
      currency: 'USD',
      reason: 'D4755-Non-Receipt of Goods or Services',
      replyDeadline: '2022-05-10',
      cpdDate: '2022-04-28',
      noticeDate: '2022-04-26 17:47:18',
    });
  });

  it('reads deadlines beside chargebackInfo too, and a missing chargebackInfo leaves them out', () => {
    const { chargebackInfo: _, ...flat } = chargebackData;
    expect(
      chargebackEventOf(verified('chargeback.success', { ...flat, replyDeadline: '2022-06-01' })),
    ).toMatchObject({
      replyDeadline: '2022-06-01',
      cpdDate: undefined,
    });
    const cardInReason = chargebackEventOf(
      verified('chargeback.success', { ...chargebackData, reason: 'fraud on 4242424242424242' }),
    );
    expect(cardInReason?.reason).toBe('fraud on 424242***4242');
  });

  it('is undefined for other events, also an unknown chargeback.* type', () => {
    expect(chargebackEventOf(verified('refund.success', chargebackData))).toBeUndefined();
    expect(chargebackEventOf(verified('chargeback.reversed', chargebackData))).toBeUndefined();
  });

  it('noticeEventOf reads either kind', () => {
    expect(noticeEventOf(verified('refund.fail', refundData))?.kind).toBe('refund');
    expect(noticeEventOf(verified('chargeback.success', chargebackData))?.kind).toBe('chargeback');
    expect(noticeEventOf(verified('transaction.success', trade))).toBeUndefined();
  });
});

class MemoryStore implements AttemptStore {
  readonly attempts = new Map<string, StoredAttempt>();
  readonly notices: { event: CallbackEvent; attempt: StoredAttempt | undefined }[] = [];
  readonly alerts: MerchantAlert[] = [];
  constructor() {
    this.attempts.set('o-1', { orderNo: 'o-1', orderAmount: '10.00', currency: 'USD', outcome: undefined });
  }
  exclusive<T>(_orderNo: string, work: () => Promise<T>): Promise<T> {
    return work();
  }
  async find(orderNo: string) {
    return this.attempts.get(orderNo);
  }
  async save(attempt: StoredAttempt, next: PaymentOutcome) {
    this.attempts.set(attempt.orderNo, { ...attempt, outcome: next });
    return true;
  }
  async alert(alert: MerchantAlert) {
    this.alerts.push(alert);
  }
  async notice(event: CallbackEvent, attempt: StoredAttempt | undefined) {
    this.notices.push({ event, attempt });
  }
}

function logger() {
  const lines: string[] = [];
  return {
    lines,
    info: (message: string) => lines.push(`info ${message}`),
    warn: (message: string) => lines.push(`warn ${message}`),
    error: (message: string) => lines.push(`error ${message}`),
  };
}

async function deliver(store: MemoryStore, body: string | { type: string; data: Record<string, unknown> }) {
  const log = logger();
  const signed = signedCallback({ ...ACCOUNT, body });
  const handled = await handleCallback({
    rawBody: signed.body,
    headers: signed.headers,
    accounts: [ACCOUNT],
    storeFor: () => store,
    logger: log,
  });
  return { ...handled, log: log.lines };
}

describe('events of a type core does not know', () => {
  it('are acknowledged with success and an info log, handed to the notice hook, the payment unchanged', async () => {
    const store = new MemoryStore();
    const handled = await deliver(store, { type: 'dispute.opened', data: { ...trade, orderStatus: 'fail' } });
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('notice');
    expect(handled.log).toEqual([
      'info gatewaykit: callback of unknown type dispute.opened for o-1 acknowledged, not handled',
    ]);
    expect(store.notices.map(({ event, attempt }) => [event.type, attempt?.orderNo])).toEqual([
      ['dispute.opened', 'o-1'],
    ]);
    expect(store.attempts.get('o-1')?.outcome).toBeUndefined();
  });

  it('a future transaction.* type carrying an orderStatus does not change the payment', async () => {
    const store = new MemoryStore();
    const event = verified('transaction.reversed', { ...trade, orderStatus: 'success' });
    expect(isKnownCallbackEventType(event.type)).toBe(false);
    expect(outcomeFromCallback(event)).toBeUndefined();
    const handled = await deliver(store, {
      type: 'transaction.reversed',
      data: { ...trade, orderStatus: 'success' },
    });
    expect(handled.answer.body).toBe('success');
    expect(handled.result.kind).toBe('notice');
    expect(store.attempts.get('o-1')?.outcome).toBeUndefined();
    expect(store.alerts).toEqual([]);
  });

  it('without a data object: still verified (empty data) and acknowledged', async () => {
    const store = new MemoryStore();
    for (const body of [
      '{"type":"account.notice"}',
      '{"type":"account.notice","data":"text"}',
      '{"type":"x","data":[1]}',
    ]) {
      const handled = await deliver(store, body);
      expect(handled.answer).toEqual({ status: 200, body: 'success' });
      expect(handled.result).toMatchObject({ kind: 'notice', event: { data: {} } });
    }
    expect(store.notices.map(({ attempt }) => attempt)).toEqual([undefined, undefined, undefined]);
  });

  it('a known type still needs its data object; an empty or missing type is still malformed (401)', async () => {
    const store = new MemoryStore();
    for (const body of ['{"type":"refund.success"}', '{"type":"","data":{}}', '{"data":{}}', '[]']) {
      const handled = await deliver(store, body);
      expect(handled.answer.status).toBe(401);
      expect(handled.result).toMatchObject({ kind: 'rejected' });
    }
    expect(store.notices).toEqual([]);
  });

  it('a badly signed unknown type is still rejected', async () => {
    const store = new MemoryStore();
    const signed = signedCallback({
      ...ACCOUNT,
      signKey: 'another-key-1',
      body: { type: 'dispute.opened', data: {} },
    });
    const handled = await handleCallback({
      rawBody: signed.body,
      headers: signed.headers,
      accounts: [ACCOUNT],
      storeFor: () => store,
      logger: logger(),
    });
    expect(handled.answer.status).toBe(401);
    expect(store.notices).toEqual([]);
  });

  it('refund and chargeback notices reach the hook as events refundEventOf / chargebackEventOf read', async () => {
    const store = new MemoryStore();
    await deliver(store, { type: 'refund.fail', data: refundData });
    await deliver(store, { type: 'chargeback.success', data: chargebackData });
    const [refund, chargeback] = store.notices;
    expect(refundEventOf(refund!.event)).toMatchObject({ status: 'failed', merTrackNo: 're_1' });
    expect(chargebackEventOf(chargeback!.event)).toMatchObject({ replyDeadline: '2022-05-10' });
    expect(refund!.attempt?.orderNo).toBe('o-1');
  });
});

describe('transaction callbacks core cannot read as a decline', () => {
  it('an orderStatus that is not one of the three is recorded as unknown, not acknowledged as a notice', async () => {
    const store = new MemoryStore();
    const handled = await deliver(store, {
      type: 'transaction.success',
      data: { ...trade, orderStatus: '1' },
    });
    expect(handled.answer).toEqual({ status: 200, body: 'success' });
    expect(handled.result.kind).toBe('changed');
    expect(store.notices).toEqual([]);
    expect(store.attempts.get('o-1')?.outcome).toMatchObject({
      status: 'unknown',
      reason: 'unrecognised orderStatus 1',
    });
    expect(handled.log).toEqual(['info gatewaykit: callback o-1: sent -> unknown']);
  });

  it('neither it nor a fail saying I0061 (already paid) turns a pending attempt into a failure', async () => {
    const store = new MemoryStore();
    store.attempts.set('o-1', {
      ...store.attempts.get('o-1')!,
      outcome: { status: 'pending', orderNo: 'o-1' },
    });
    for (const data of [
      { ...trade, orderStatus: '0' },
      { ...trade, orderStatus: 'fail', orderInfo: 'I0061:Duplicate Order' },
    ]) {
      const handled = await deliver(store, { type: 'transaction.fail', data });
      expect(handled.result.kind).toBe('stale');
      expect(store.attempts.get('o-1')?.outcome?.status).toBe('pending');
    }
    // A fail with any other text still is a decline.
    await deliver(store, {
      type: 'transaction.fail',
      data: { ...trade, orderStatus: 'fail', orderInfo: 'Declined' },
    });
    expect(store.attempts.get('o-1')?.outcome?.status).toBe('failed');
  });

  it('"success " with spaces is a success', async () => {
    const store = new MemoryStore();
    const handled = await deliver(store, {
      type: 'transaction.success',
      data: { ...trade, orderStatus: 'success ' },
    });
    expect(handled.result.kind).toBe('changed');
    expect(store.attempts.get('o-1')?.outcome?.status).toBe('succeeded');
  });
});
