import {
  type AttemptStore,
  type CallbackEvent,
  type ChargebackEvent,
  type MerchantAlert,
  noticeEventOf,
  type PaymentOutcome,
  type RefundEvent,
  recordOutcome,
  type StoredAttempt,
} from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { processPaymentWorkflow } from '@medusajs/medusa/core-flows';
import { cartIdOfCollection, isCartCompleted } from './cart-of-collection';
import { totalDiffersFromPaid } from './cart-total';
import { recordChargebackOnDeletedPage } from './deleted-page-chargebacks';
import { reportPaidWithoutSession } from './deleted-pages';
import type { GatewayRefund } from './gateway-records';
import {
  type PaymentRef,
  reportAmountMismatch,
  reportChargeback,
  reportChargebackOnUnappliedPayment,
  reportFailedAfterOrder,
  reportRefundFailed,
  reportRefundMismatch,
  reportRefundNotInMedusa,
  reportRefundSucceededAfterFailure,
  reportReturnedBeforeOrder,
  reportUnappliedCharge,
  reportUnsettledPayment,
} from './merchant-alerts';
import { hasNoResult } from './open-charges';
import { completePaidCart } from './paid-cart';
import {
  chargebackStored,
  markRefundAlerted,
  type RefundSettlement,
  recordChargeback,
  restoreMissingRefunds,
  settleRefund,
} from './payment-notices';
import { gatewayAmount } from './payment-request';
import type { GatewaykitAccount } from './resolve-options';
import { whyPaymentReturned } from './returned-payment';
import {
  type GatewaykitSessionData,
  readSessionData,
  type UnpaidOrderCheck,
  withOutcome,
} from './session-data';

/** A gateway payment attempt as Medusa stores it: one payment session (orderNo = session id). */
export interface SessionAttempt extends StoredAttempt {
  session: PaymentSessionDTO;
  /**
   * A success whose session is authorized and whose cart is an order: Medusa is done with it for good
   * (no authorization saves over it again, the order exists), so nothing an outcome says changes it.
   */
  inPlacedOrder?: boolean;
}

/**
 * The session fields the callback's flow uses (the outcome in `data`, the authorization, what an update
 * sends back): a read of all of them costs Medusa about twice the CPU (docs/performance.md).
 */
const SESSION_FIELDS = [
  'id',
  'provider_id',
  'payment_collection_id',
  'amount',
  'currency_code',
  'status',
  'authorized_at',
  'data',
];

/** How often a success is stored again when a concurrent authorize saved its older data over it. */
const REAUTHORIZE_TRIES = 2;

/**
 * Core's AttemptStore over Medusa payment sessions of one merchant account (docs/inbound.md): a session
 * of another account's providers is never found, so an outcome changes only sessions of the account
 * whose key verified it. Writes run under the cart's lock, the key Medusa's cart completion and
 * processPaymentWorkflow take, so session data is never read while an authorize is about to save its
 * own copy.
 */
export class SessionAttempts implements AttemptStore<SessionAttempt> {
  private reauthorizations = 0;
  // Not `finalOutcomesStay`: an authorize can save a session's older data over a stored success
  // (afterChange stores it again), so outcomes are decided under the cart's lock, except for a
  // success already in a placed order (outcomeStays): its duplicates are answered from a plain read.

  /**
   * What this store has read (one store serves one callback, return or job run): a session's payment
   * collection and a collection's cart never change, so the lock key and the cart check read them
   * once. Everything that can change (the session's data, the cart's completion) is read every time.
   */
  private readonly collectionOfSession = new Map<string, string>();
  private readonly cartOfCollection = new Map<string, string>();

  constructor(
    private readonly scope: MedusaContainer,
    private readonly account: GatewaykitAccount,
    /**
     * How long a write waits for the cart's lock before it fails (seconds). A request waits the full
     * minute (the gateway is answered 500 after it); the worker's kept callbacks wait less and are
     * tried again later by the event bus, so one held cart does not keep the worker's queue waiting.
     */
    private readonly lockWaitSeconds = 60,
  ) {}

  async exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
    const collectionId =
      this.collectionOfSession.get(orderNo) ?? (await this.session(orderNo))?.payment_collection_id;
    const cartId = collectionId ? await this.cartIdOf(collectionId) : undefined;
    return this.scope
      .resolve(Modules.LOCKING)
      .execute(cartId ?? `gatewaykit:${orderNo}`, work, { timeout: this.lockWaitSeconds });
  }

  async find(orderNo: string): Promise<SessionAttempt | undefined> {
    const session = await this.session(orderNo);
    if (!session) return undefined;
    const data = readSessionData(session.data);
    const paidAndAuthorized = data.outcome?.status === 'succeeded' && Boolean(session.authorized_at);
    return {
      orderNo,
      // What was sent; sessions stored before the amount was kept in data fall back to the session's.
      orderAmount: data.amount ?? gatewayAmount(session.amount, session.currency_code),
      currency: data.currency ?? session.currency_code,
      outcome: data.outcome,
      session,
      inPlacedOrder: paidAndAuthorized && (await this.cartCompleted(session)),
    };
  }

  outcomeStays(attempt: SessionAttempt): boolean {
    return attempt.inPlacedOrder === true;
  }

  async save(attempt: SessionAttempt, next: PaymentOutcome): Promise<boolean> {
    const { session } = attempt;
    const data = withOutcome(readSessionData(session.data), next);
    // Written with the failure, so a process that dies before looking at the cart leaves it for the
    // reconciliation (checkUnpaidOrder).
    if (next.status === 'failed' && hadNoFinalAnswer(attempt.outcome)) data.unpaidOrderCheck = 'due';
    attempt.session = await this.scope.resolve(Modules.PAYMENT).updatePaymentSession({
      id: session.id,
      amount: session.amount,
      currency_code: session.currency_code,
      data: data as Record<string, unknown>,
      // A failure closes the session (the storefront starts a new one); a success becomes `captured`
      // through the authorization in afterChange; others take the provider's mapping (pending ->
      // pending_authorization), so the cart stays processable.
      status: next.status === 'failed' ? 'error' : next.status === 'succeeded' ? session.status : undefined,
    });
    // The cart lock serialises writers of this session, so nobody can have changed it since `find`.
    return true;
  }

  /**
   * A success authorizes the session the way Medusa's own payment webhooks do (the provider reads the
   * stored success and answers `captured`), then completes the cart if the storefront has not.
   */
  async afterChange(attempt: SessionAttempt, next: PaymentOutcome): Promise<void> {
    if (next.status === 'failed') {
      await this.checkUnpaidOrder(attempt.orderNo);
      return;
    }
    if (next.status !== 'succeeded') return;
    if (attempt.session.authorized_at) {
      await completePaidCart(this.scope, attempt.session, next, { first: true });
      return;
    }
    // Refunded in the merchant portal or charged back before its success was recorded (kept on the
    // session, lib/payment-notices.ts): money given back never becomes a payment, nor an order.
    const returned = whyPaymentReturned({ data: attempt.session.data });
    if (returned) {
      const reason = `${returned} before its success was recorded`;
      await this.reportUnapplied(attempt.orderNo, next, reason, reportReturnedBeforeOrder);
      return;
    }
    // Medusa's payment workflow authorizes, captures and completes without looking at either.
    const refused = await this.whyNotToApply(attempt.session, next);
    if (refused) {
      await this.reportUnapplied(attempt.orderNo, next, refused);
      return;
    }
    await processPaymentWorkflow(this.scope).run({
      input: { action: 'captured', data: { session_id: attempt.session.id, amount: attempt.session.amount } },
    });
    const after = await this.session(attempt.orderNo);
    if (!after) return;
    if (after.authorized_at) {
      await completePaidCart(this.scope, after, next, { first: true });
      return;
    }
    if (
      readSessionData(after.data).outcome?.status !== 'succeeded' &&
      this.reauthorizations++ < REAUTHORIZE_TRIES
    ) {
      // A concurrent authorize saved its older data over the success: store it again and authorize.
      await recordOutcome(this, next);
      return;
    }
    await this.reportUnapplied(attempt.orderNo, next, `payment session ${after.id} could not be authorized`);
  }

  /**
   * Reports a stored success that did not become its cart's payment, and marks the session so the
   * reconciliation's pass over such successes (lib/unapplied-success.ts) does not report it again.
   */
  private async reportUnapplied(
    orderNo: string,
    paid: PaymentOutcome,
    reason: string,
    report: typeof reportUnappliedCharge = reportUnappliedCharge,
  ): Promise<void> {
    await report(this.scope, paid, reason);
    await this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      if (session && !session.authorized_at) await this.markUnappliedReported(session);
    });
  }

  /** Writes `unappliedReportedAt` into the session's data; the caller holds the cart's lock. */
  async markUnappliedReported(session: PaymentSessionDTO): Promise<void> {
    await this.writeData(session, { unappliedReportedAt: new Date().toISOString() });
  }

  /**
   * The reconciliation stops asking the gateway about session `orderNo`, still without a result: said
   * once (PAYMENT NOT SETTLED, then `handedOverAt` in its data, alert first so a crash repeats it),
   * under the cart's lock so an answer that arrives meanwhile wins. Whether it was said now.
   */
  async handOver(orderNo: string, reason: string): Promise<boolean> {
    return this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      const data = readSessionData(session?.data);
      if (!session || !hasNoResult(data.outcome) || data.handedOverAt) return false;
      const asked = {
        orderNo,
        status: 'unknown' as const,
        reason,
        tradeNo: data.outcome?.tradeNo,
        amount: data.amount,
        currency: data.currency,
      };
      await reportUnsettledPayment(this.scope, asked, reason);
      await this.writeData(session, { handedOverAt: new Date().toISOString() });
      return true;
    });
  }

  /** Adds to the session's data, keeping its status; the caller holds the cart's lock. */
  private async writeData(session: PaymentSessionDTO, added: Partial<GatewaykitSessionData>): Promise<void> {
    await this.scope.resolve(Modules.PAYMENT).updatePaymentSession({
      id: session.id,
      amount: session.amount,
      currency_code: session.currency_code,
      status: session.status,
      data: { ...session.data, ...added },
    });
  }

  /**
   * Why a first success must not be authorized into its cart or order: the order was canceled
   * meanwhile (a pending card places it unpaid; the merchant may cancel it before the gateway's
   * answer), or the open cart's total moved away from what was paid (lib/cart-total.ts). The money is
   * the merchant's to refund (docs/SECURITY.md §6).
   */
  private async whyNotToApply(session: PaymentSessionDTO, paid: PaymentOutcome): Promise<string | undefined> {
    const [collection] = await this.scope
      .resolve(Modules.PAYMENT)
      .listPaymentCollections({ id: session.payment_collection_id }, { select: ['id', 'status'] });
    if (collection?.status === 'canceled') {
      return `its order was canceled before the payment arrived (payment collection ${collection.id} is canceled), so nothing was captured into it`;
    }
    const cartId = await this.cartIdOf(session.payment_collection_id);
    return cartId ? totalDiffersFromPaid(this.scope, cartId, paid) : undefined;
  }

  /** A repeated success finishes what the first one could not: the paid cart's order. */
  async afterUnchanged(attempt: SessionAttempt, current: PaymentOutcome): Promise<void> {
    if (current.status === 'succeeded' && !attempt.inPlacedOrder) {
      await completePaidCart(this.scope, attempt.session, current, { first: false });
    }
  }

  async alert(alert: MerchantAlert): Promise<void> {
    if (alert.kind === 'paid-not-applied') {
      // Once per page whose session Medusa deleted (lib/deleted-pages.ts); the run may have reported it.
      const said = await reportPaidWithoutSession(
        this.scope,
        this.account.providerIds,
        alert.outcome.orderNo,
        `${alert.reason} (provider account "${this.account.id}")`,
        (reason) => reportUnappliedCharge(this.scope, alert.outcome, reason),
      );
      if (said === 'already-reported')
        this.logger.info(`gatewaykit: ${alert.outcome.orderNo} paid without a session, already reported`);
    } else {
      await reportAmountMismatch(this.scope, alert.outcome, alert.message);
    }
  }

  /**
   * Refund and chargeback notices (docs/callbacks-and-returns.md#refund-and-chargeback-events), found
   * by orderNo among this account's sessions only (a chargeback also among the pages its providers
   * kept for deleted sessions), so another account's key changes nothing here.
   */
  async notice(event: CallbackEvent, attempt: SessionAttempt | undefined): Promise<void> {
    const typed = noticeEventOf(event);
    if (!typed) return;
    if (!attempt) {
      // A chargeback of money paid on a page whose session was deleted: kept on that page.
      const recorded =
        typed.kind === 'chargeback' && typed.orderNo
          ? await this.recordChargeback(typed.orderNo, typed)
          : 'not-found';
      if (recorded !== 'not-found') return;
      this.logger.warn(
        `gatewaykit: ${event.type} for orderNo ${typed.orderNo ?? '?'} (batchNo ${typed.batchNo ?? '?'}): no payment session of provider account "${this.account.id}"${typed.kind === 'chargeback' ? ', nor a page it kept for a deleted one,' : ''} has this orderNo; nothing changed`,
      );
      return;
    }
    if (typed.kind === 'refund') await this.settleRefund(attempt.orderNo, typed);
    else await this.recordChargeback(attempt.orderNo, typed);
  }

  /**
   * Settles a refund of the payment of session `orderNo` from its notification or from the gateway's
   * record (reconciliation): one path, so a result counts once whichever comes first.
   */
  async settleRefund(orderNo: string, event: RefundEvent): Promise<RefundSettlement | undefined> {
    // A refund now failed is said before it is stored (alert first, then the write).
    const alertFirst = async (change: { payment: PaymentRef; entry: GatewayRefund }) => {
      if (change.entry.status === 'failed')
        await reportRefundFailed(this.scope, change.payment, change.entry);
    };
    const result = await this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      return session ? settleRefund(this.scope, session, event, alertFirst) : undefined;
    });
    if (!result) return undefined;
    const what = `refund ${event.merTrackNo ?? '?'} (batchNo ${event.batchNo ?? '?'}) of orderNo ${orderNo}`;
    switch (result.kind) {
      case 'changed':
        if (result.entry.status !== 'failed') this.logger.info(`gatewaykit: ${what} ${result.entry.status}`);
        break;
      case 'duplicate':
        this.logger.info(`gatewaykit: ${what} already ${result.entry.status}; nothing changed`);
        break;
      case 'conflict':
        this.logger.warn(
          `gatewaykit: ${what} reported ${event.status} but is already ${result.entry.status}; the first result stays`,
        );
        // A refund recorded as made (its answer said so) now reported failed: the order shows money
        // returned that the customer did not get.
        if (event.status === 'failed' && result.entry.status === 'succeeded')
          await reportRefundFailed(this.scope, result.payment, {
            ...result.entry,
            reason: `${event.reason ?? 'no reason given'} (it had been recorded as made)`,
          });
        // The failure asked the merchant to refund again: money may have gone back twice.
        if (event.status === 'succeeded' && result.entry.status === 'failed')
          await reportRefundSucceededAfterFailure(this.scope, result.payment, result.entry);
        break;
      case 'mismatch':
        await reportRefundMismatch(this.scope, result.payment, result.message);
        break;
      default:
        // A declined refund is gone from Medusa already (refundPayment refused it); a success is money
        // returned that Medusa does not show.
        if (event.status === 'succeeded') await reportRefundNotInMedusa(this.scope, result.payment, event);
        else this.logger.info(`gatewaykit: ${what} failed; Medusa holds no such refund, nothing to change`);
    }
    return result;
  }

  /** Medusa's refund rows its payment data lost, written back as unknown refunds (restoreMissingRefunds). */
  async restoreMissingRefunds(orderNo: string, now: Date): Promise<GatewayRefund[]> {
    return this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      return session ? restoreMissingRefunds(this.scope, session, now) : [];
    });
  }

  /**
   * A failure recorded for a session whose cart is an order already: the order has no money behind it
   * (docs/payment-states.md#a-charge-cut-off-after-medusa-placed-its-order). A pending payment lets
   * Medusa place the order at once, unpaid; and Medusa places the order before it charges, so a
   * completion killed during the charge (no answer, or a lost one) leaves one too. The failure was
   * recorded under the cart's lock, after any completion still holding it had ended or compensated its
   * order, and while such a session is open no other session of the cart may start, so a completed
   * cart is this payment's order. Reported once, under the cart's lock, by whichever path comes first:
   * the failure's own recording, or the reconciliation when the process died before it looked.
   */
  async checkUnpaidOrder(orderNo: string): Promise<Exclude<UnpaidOrderCheck, 'due'> | undefined> {
    return this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      const data = readSessionData(session?.data);
      if (!session || data.unpaidOrderCheck !== 'due') return undefined;
      const failure = data.outcome;
      const unpaid = failure?.status === 'failed' && (await this.cartCompleted(session));
      if (unpaid) {
        // A failure with no gateway record names no amount: the attempt's.
        const said = {
          ...failure,
          amount: failure.amount ?? data.amount,
          currency: failure.currency ?? data.currency,
        };
        // Reported before it is marked: a process that dies in between repeats the alert, never loses it.
        await reportFailedAfterOrder(this.scope, said, failure.reason);
      }
      const check = unpaid ? 'reported' : 'not-needed';
      await this.writeData(session, { unpaidOrderCheck: check });
      return check;
    });
  }

  /** Notes that an unsettled refund of session `orderNo`'s payment was reported to the merchant. */
  async markRefundAlerted(orderNo: string, merTrackNo: string, now: Date): Promise<void> {
    await this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      if (session) await markRefundAlerted(this.scope, session, merTrackNo, now);
    });
  }

  /**
   * Stores a chargeback of session `orderNo`'s payment, from its notice or from the gateway's list
   * (reconciliation): one path, so it is stored and alerted once whichever comes first. With no session,
   * on the page this account's providers kept when Medusa deleted it (`added-on-deleted-page`, alerted
   * apart: that payment was never applied). `not-found`: neither has the orderNo.
   */
  async recordChargeback(orderNo: string, event: ChargebackEvent): Promise<ChargebackRecording> {
    // Each run lists the week's chargebacks again: one already stored is answered without the lock.
    const seen = await this.session(orderNo);
    if (!seen) return this.recordChargebackOnDeletedPage(orderNo, event);
    if (await chargebackStored(this.scope, seen, event)) return 'known';
    // Said before it is stored (alert first, then the write): a repeated notice finds it stored.
    const result = await this.exclusive(orderNo, async () => {
      const session = await this.session(orderNo);
      return session
        ? recordChargeback(this.scope, session, event, (payment) =>
            reportChargeback(this.scope, payment, event),
          )
        : undefined;
    });
    if (!result) return this.recordChargebackOnDeletedPage(orderNo, event);
    if (!result.added)
      this.logger.info(
        `gatewaykit: chargeback ${event.batchNo ?? '?'} of orderNo ${orderNo} already recorded`,
      );
    return result.added ? 'added' : 'known';
  }

  /** A chargeback of no session: kept on the page this account kept for the deleted session, if any. */
  private async recordChargebackOnDeletedPage(
    orderNo: string,
    event: ChargebackEvent,
  ): Promise<ChargebackRecording> {
    const result = await recordChargebackOnDeletedPage(
      this.scope,
      this.account.providerIds,
      orderNo,
      event,
      () => reportChargebackOnUnappliedPayment(this.scope, { orderNo, tradeNo: event.tradeNo }, event),
    );
    return result === 'added' ? 'added-on-deleted-page' : result;
  }

  private get logger() {
    return this.scope.resolve(ContainerRegistrationKeys.LOGGER);
  }

  /** Two reads, not one: a cart completed between them reads as open, which takes the locked path. */
  private async cartCompleted(session: PaymentSessionDTO): Promise<boolean> {
    const cartId = await this.cartIdOf(session.payment_collection_id);
    return cartId !== undefined && (await isCartCompleted(this.scope, cartId));
  }

  /** The cart of a payment collection; a collection without one (an order's) is asked again. */
  private async cartIdOf(collectionId: string): Promise<string | undefined> {
    const known = this.cartOfCollection.get(collectionId);
    if (known) return known;
    const cartId = await cartIdOfCollection(this.scope, collectionId);
    if (cartId) this.cartOfCollection.set(collectionId, cartId);
    return cartId;
  }

  /** The session of orderNo, if one of this account's providers owns it. */
  private async session(orderNo: string): Promise<PaymentSessionDTO | undefined> {
    const [session] = await this.scope
      .resolve(Modules.PAYMENT)
      .listPaymentSessions({ id: orderNo }, { select: SESSION_FIELDS });
    if (!session || !this.account.providerIds.includes(session.provider_id)) return undefined;
    this.collectionOfSession.set(orderNo, session.payment_collection_id);
    return session;
  }
}

/**
 * What recording a chargeback did: `added` on the payment (or session), `added-on-deleted-page` on the
 * page kept for a deleted session, `known` (already kept), `not-found` (no session or kept page).
 */
export type ChargebackRecording = 'added' | 'added-on-deleted-page' | 'known' | 'not-found';

/** No final answer before this one: the charge was sent (or answered unknown or pending) only. */
function hadNoFinalAnswer(before: PaymentOutcome | undefined): boolean {
  return before === undefined || before.status === 'unknown' || before.status === 'pending';
}
