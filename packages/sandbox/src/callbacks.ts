/**
 * Callback engine: signs and POSTs `{type, data}` to the order's callbackUrl like the gateway
 * (docs/callbacks-and-returns.md#callbacks): PHP-style JSON body, UPPERCASE sign-info, fresh request-id
 * per attempt, delivered only when the receiver answers the body `success`, otherwise retried 15
 * times on the gateway's schedule compressed by `timeScale`. Chaos knobs reproduce duplicates,
 * stale out-of-order events, delays and drops. Refund and chargeback notifications of a trade go the
 * same way, to the callbackUrl of the original payment
 * (docs/callbacks-and-returns.md#refund-and-chargeback-events).
 */
import { Agent, request } from 'undici';
import type { VirtualClock } from './clock.js';
import { newRequestId, phpJsonEncode, signedCallback } from './core.js';
import { newShortId } from './ids.js';
import type { Merchant } from './signature-check.js';
import { type OrderRecord, orderSummary } from './store.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after failed attempts 1..14: 15 attempts over about 14 hours; the gateway says 17 (docs/callbacks-and-returns.md#retry-schedule). */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  15 * SECOND,
  15 * SECOND,
  30 * SECOND,
  3 * MINUTE,
  3 * MINUTE,
  30 * MINUTE,
  30 * MINUTE,
  HOUR,
  ...Array<number>(6).fill(2 * HOUR),
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

export type TransactionCallbackType = 'transaction.success' | 'transaction.fail' | 'transaction.pending';
/** Notifications about a trade after its payment: refund results and chargebacks. */
export type TradeNoticeType = 'refund.success' | 'refund.fail' | 'chargeback.success';
export type CallbackType = TransactionCallbackType | TradeNoticeType;

export interface CallbackChaos {
  /** Deliver each event this many times, concurrently (duplicates). */
  copies?: number | undefined;
  /** After a success event, also deliver a stale `transaction.fail` for the same trade. */
  outOfOrder?: boolean | undefined;
  /** Hold each event this long (real ms; moving the virtual clock past it releases it too). */
  delayMs?: number | undefined;
  /** Record the event but never send it (manual redeliver still works). */
  drop?: boolean | undefined;
  /** Relative to the browser return of hosted pages: send first and wait, or send after the 303. */
  timing?: 'concurrent' | 'before-return' | 'after-return' | undefined;
  /** Hosted pages do not redirect back to returnUrl: on `abandon` only, or on every outcome. */
  noReturn?: false | 'abandon' | 'always' | undefined;
}

export interface CallbackAttempt {
  attempt: number;
  manual: boolean;
  at: string;
  requestId: string;
  result: 'delivered' | 'rejected' | 'error';
  httpStatus?: number | undefined;
  /** First 200 characters of the receiver's answer. */
  response?: string | undefined;
  error?: string | undefined;
  durationMs: number;
}

export type DeliveryState = 'held' | 'scheduled' | 'sending' | 'delivered' | 'failed' | 'dropped';

export interface CallbackDelivery {
  id: string;
  gatewayNo: string;
  tradeNo: string;
  orderNo: string;
  /** The refund's or chargeback's batchNo, for `refund.*` and `chargeback.*` notifications. */
  batchNo?: string | undefined;
  type: CallbackType;
  url: string;
  /** The exact body sent (phpJsonEncode), identical on every attempt. */
  body: string;
  state: DeliveryState;
  attempts: CallbackAttempt[];
  nextAttemptAt?: string | undefined;
  /** Why this delivery exists beyond the plain event (duplicate copy, stale event, drop). */
  chaos?: string | undefined;
  createdAt: string;
}

export interface CallbackEngineOptions {
  clock: VirtualClock;
  merchants: ReadonlyMap<string, Merchant>;
  timeScale: number;
  /** Per-attempt timeout (real ms). */
  attemptTimeoutMs: number;
}

interface Runtime {
  cancelRetry?: (() => void) | undefined;
  firstAttempt: Promise<void>;
  releaseFirst: () => void;
  autoAttempts: number;
}

const NOTHING_TO_WAIT_FOR: Promise<void> = Promise.resolve();

export function callbackData(
  order: OrderRecord,
  overrides: Partial<Record<string, string>> = {},
): Record<string, string> {
  // Object.assign rather than spreads into a literal: same keys in the same order, without V8's slow
  // spread path on every callback.
  return Object.assign({ transactionType: 'Sale' }, orderSummary(order), overrides) as Record<string, string>;
}

export class CallbackEngine {
  private readonly deliveries: CallbackDelivery[] = [];
  private readonly runtime = new Map<string, Runtime>();
  private readonly agent: Agent;
  private chaosSettings: CallbackChaos = {};
  private closed = false;

  constructor(private readonly options: CallbackEngineOptions) {
    this.agent = new Agent({ connect: { timeout: options.attemptTimeoutMs } });
  }

  get chaos(): CallbackChaos {
    return { ...this.chaosSettings };
  }

  setChaos(settings: CallbackChaos): CallbackChaos {
    this.chaosSettings = { ...settings };
    return this.chaos;
  }

  list(): readonly CallbackDelivery[] {
    return this.deliveries;
  }

  get(id: string): CallbackDelivery | undefined {
    return this.deliveries.find((delivery) => delivery.id === id);
  }

  /**
   * Creates the deliveries for one event of an order (several under chaos) without sending them;
   * `start` sends them. Returns nothing when the order has no callbackUrl.
   */
  create(order: OrderRecord, type: TransactionCallbackType): CallbackDelivery[] {
    if (!order.callbackUrl) return [];
    const chaos = this.chaosSettings;
    const created = this.addCopies(order, type, phpJsonEncode({ type, data: callbackData(order) }));
    if (chaos.outOfOrder && type === 'transaction.success' && !chaos.drop) {
      const staleBody = phpJsonEncode({
        type: 'transaction.fail',
        data: callbackData(order, {
          orderStatus: 'fail',
          orderInfo: 'Stale notification (chaos: out of order)',
        }),
      });
      const stale = this.add(
        order,
        'transaction.fail',
        staleBody,
        'held',
        'stale fail after success (out of order)',
      );
      // The stale event is sent only after the success event's first attempt, so it arrives later.
      const first = created[0];
      const firstRuntime = first ? this.runtime.get(first.id) : undefined;
      void firstRuntime?.firstAttempt.then(() => this.start([stale]));
    }
    return created;
  }

  /**
   * Like `create`, for a refund or chargeback notification of the order's trade: `data` is the whole
   * event data, sent to the order's callbackUrl. Copies, delay and drop apply; the stale out-of-order
   * event is a payment's only.
   */
  createNotice(
    order: OrderRecord,
    type: TradeNoticeType,
    batchNo: string,
    data: Record<string, unknown>,
  ): CallbackDelivery[] {
    if (!order.callbackUrl) return [];
    return this.addCopies(order, type, phpJsonEncode({ type, data }), batchNo);
  }

  /** One delivery per chaos copy (dropped ones recorded as such), all with the same body. */
  private addCopies(
    order: OrderRecord,
    type: CallbackType,
    body: string,
    batchNo?: string,
  ): CallbackDelivery[] {
    const chaos = this.chaosSettings;
    const copies = Math.max(1, Math.floor(chaos.copies ?? 1));
    const created: CallbackDelivery[] = [];
    for (let copy = 1; copy <= copies; copy++) {
      const notes: string[] = [];
      if (copies > 1) notes.push(`copy ${copy} of ${copies}`);
      if (chaos.drop) notes.push('dropped');
      created.push(
        this.add(order, type, body, chaos.drop ? 'dropped' : 'held', notes.join(', ') || undefined, batchNo),
      );
    }
    return created;
  }

  /** Sends held deliveries (after the chaos delay). Resolves once each has had its first attempt. */
  start(deliveries: readonly CallbackDelivery[]): Promise<void> {
    // Orders without a callbackUrl have no deliveries: no need to build an empty Promise.all.
    if (deliveries.length === 0) return NOTHING_TO_WAIT_FOR;
    const delayMs = Math.max(0, this.chaosSettings.delayMs ?? 0);
    const waits: Promise<void>[] = [];
    for (const delivery of deliveries) {
      const runtime = this.runtime.get(delivery.id);
      if (!runtime) continue;
      waits.push(runtime.firstAttempt);
      if (delivery.state !== 'held') {
        // Dropped, already started or already delivered by hand: nobody should wait on it.
        runtime.releaseFirst();
        continue;
      }
      delivery.state = 'scheduled';
      if (delayMs > 0) {
        delivery.nextAttemptAt = new Date(this.options.clock.now() + delayMs).toISOString();
        runtime.cancelRetry = this.options.clock.schedule(
          delayMs,
          delayMs,
          () => void this.attempt(delivery, false),
        );
      } else {
        void this.attempt(delivery, false);
      }
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** One immediate extra attempt, outside the schedule; a success stops pending retries. */
  async redeliver(id: string): Promise<CallbackDelivery | undefined> {
    const delivery = this.get(id);
    if (!delivery) return undefined;
    await this.attempt(delivery, true);
    return delivery;
  }

  /** Resolves when `predicate` holds for the delivery log, polling; rejects after `timeoutMs`. */
  async waitFor(
    predicate: (deliveries: readonly CallbackDelivery[]) => boolean,
    timeoutMs = 5000,
  ): Promise<readonly CallbackDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.deliveries)) {
      if (Date.now() > deadline)
        throw new Error(`callbacks did not reach the expected state within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.deliveries;
  }

  reset(): void {
    for (const runtime of this.runtime.values()) {
      runtime.cancelRetry?.();
      runtime.releaseFirst();
    }
    this.runtime.clear();
    this.deliveries.length = 0;
    this.chaosSettings = {};
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reset();
    await this.agent.destroy();
  }

  private add(
    order: OrderRecord,
    type: CallbackType,
    body: string,
    state: DeliveryState,
    chaos: string | undefined,
    batchNo?: string,
  ): CallbackDelivery {
    const delivery: CallbackDelivery = {
      id: newShortId('cb'),
      gatewayNo: order.gatewayNo,
      tradeNo: order.tradeNo,
      orderNo: order.orderNo,
      batchNo,
      type,
      url: order.callbackUrl ?? '',
      body,
      state,
      attempts: [],
      chaos,
      createdAt: new Date(this.options.clock.now()).toISOString(),
    };
    let releaseFirst: () => void = () => {};
    const firstAttempt = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    this.runtime.set(delivery.id, { firstAttempt, releaseFirst, autoAttempts: 0 });
    this.deliveries.push(delivery);
    return delivery;
  }

  private async attempt(delivery: CallbackDelivery, manual: boolean): Promise<void> {
    const runtime = this.runtime.get(delivery.id);
    const merchant = this.options.merchants.get(delivery.gatewayNo);
    if (!runtime || !merchant || this.closed) return;
    if (!manual) {
      runtime.cancelRetry = undefined;
      runtime.autoAttempts++;
      delivery.nextAttemptAt = undefined;
    }
    const before = delivery.state;
    if (delivery.state !== 'delivered') delivery.state = 'sending';
    const requestId = newRequestId();
    const requestTime = this.options.clock.now();
    const started = Date.now();
    const record: CallbackAttempt = {
      attempt: delivery.attempts.length + 1,
      manual,
      at: new Date(requestTime).toISOString(),
      requestId,
      result: 'error',
      durationMs: 0,
    };
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: signedCallback({
          gatewayNo: merchant.gatewayNo,
          signKey: merchant.signKey,
          body: delivery.body,
          requestId,
          requestTime,
        }).headers,
        body: delivery.body,
        headersTimeout: this.options.attemptTimeoutMs,
        bodyTimeout: this.options.attemptTimeoutMs,
      });
      const text = await response.body.text();
      record.httpStatus = response.statusCode;
      record.response = text.slice(0, 200);
      // Only the body counts, as at the gateway: `success`, any case, surrounding blanks ignored.
      record.result = text.trim().toLowerCase() === 'success' ? 'delivered' : 'rejected';
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
    }
    record.durationMs = Date.now() - started;
    if (this.closed || !this.runtime.has(delivery.id)) return;
    delivery.attempts.push(record);

    if (record.result === 'delivered') {
      delivery.state = 'delivered';
      runtime.cancelRetry?.();
      runtime.cancelRetry = undefined;
      delivery.nextAttemptAt = undefined;
    } else if (delivery.state !== 'delivered') {
      if (!manual) this.scheduleRetry(delivery, runtime);
      // A failed manual attempt leaves the delivery where it was (scheduled, failed, dropped, held).
      else if (delivery.state === 'sending' && before !== 'sending') delivery.state = before;
    }
    if (!manual && runtime.autoAttempts === 1) runtime.releaseFirst();
  }

  private scheduleRetry(delivery: CallbackDelivery, runtime: Runtime): void {
    const wait = RETRY_SCHEDULE_MS[runtime.autoAttempts - 1];
    if (wait === undefined) {
      delivery.state = 'failed';
      return;
    }
    delivery.state = 'scheduled';
    delivery.nextAttemptAt = new Date(this.options.clock.now() + wait).toISOString();
    runtime.cancelRetry = this.options.clock.schedule(wait, wait * this.options.timeScale, () => {
      void this.attempt(delivery, false);
    });
  }
}
