import {
  checkoutFlowOf,
  gatewayClientFor,
  reconcileAndRecord,
  reconcileRefund,
  redactedErrorText,
  storedAnswerOf,
} from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import type { GatewayRefund } from './gateway-records';
import { reportPendingRefund, reportUnsettledRefund } from './merchant-alerts';
import { hasNoResult } from './open-charges';
import { reconcileWaitsMs } from './options';
import { type ChargebackLine, reconcileChargebacks } from './reconcile-chargebacks';
import { reconcileDeletedPages } from './reconcile-deleted-pages';
import { type GatewaykitAccount, resolveGatewaykitAccounts } from './resolve-options';
import { type SessionAttempt, SessionAttempts } from './session-attempts';
import { type GatewaykitSessionData, readSessionData } from './session-data';
import { placeholders } from './sql-placeholders';
import { applyStoredSuccess } from './unapplied-success';

/**
 * Reconciliation (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks): payments whose
 * answer and notifications were lost are settled from the gateway's own record, through the same
 * recordOutcome a callback takes, so nothing is charged twice or moved backwards; refunds still open
 * are queried by batchNo. The scheduled job and the admin route run this.
 */

/** The lock every run holds: one run at a time, across instances with a shared locking provider. */
const RECONCILE_RUN_LOCK = 'gatewaykit:reconcile:run';
const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back sessions and refunds are looked at. */
const LOOKBACK_MS = 30 * DAY_MS;
/** Session statuses of a charge that may have been taken but has no result yet (unknown / pending). */
const OPEN_STATUSES = ['pending', 'pending_authorization'];
/** Session status of a shopper sent to a gateway page (hosted, local method, 3-D Secure). */
const REDIRECT_STATUS = 'requires_more';
/**
 * Session status of a failed payment: only its stored successes (paid late) and its failures whose
 * cart was not looked at yet are.
 */
const FAILED_STATUS = 'error';
/** How long a stored success is left to its own recording even when an admin names its session. */
const STORED_SUCCESS_MIN_AGE_MS = 60_000;
/**
 * How far back gateway pages are looked at. A page still listed pending once it has expired ends
 * failed (core's reconcileAttempt), so a page is asked about for `failUnrecordedAfterSeconds` after the
 * job first sees it; this bounds the rest (the job or the server down for longer).
 */
const REDIRECT_LOOKBACK_MS = 2 * DAY_MS;
/**
 * How long past its look-back a session still without a result is listed: it is handed to a person
 * once (PAYMENT NOT SETTLED) on the first run that finds it past the look-back; a week, so runs missed
 * for days still find it.
 */
const HAND_OVER_WINDOW_MS = 7 * DAY_MS;

export interface ReconcileRunOptions {
  now?: Date;
  /** Only these sessions (orderNos) and their payments' refunds, whatever their age. */
  orderNos?: readonly string[];
}

export interface AttemptLine {
  orderNo: string;
  account: string;
  /** recordOutcome's decision, `none` when the gateway's record gave nothing to record, `error`. */
  result: string;
  /** The session's outcome status after the run. */
  status: string;
  reason: string;
}

export interface RefundLine {
  orderNo: string;
  merTrackNo: string;
  batchNo?: string | undefined;
  /** The refund's status after the run. */
  status: string;
  reason: string;
}

export interface ReconcileReport {
  attempts: AttemptLine[];
  refunds: RefundLine[];
  /** Chargebacks the gateway lists that no notice had brought, and what failed. */
  chargebacks: ChargebackLine[];
}

/**
 * A session that went to the gateway and has no final result yet: a charge sent without an answer,
 * answered unknown or pending, or a shopper sent to a gateway page (who may have paid there while
 * every callback was lost).
 */
export function awaitsGatewayOutcome(data: Partial<GatewaykitSessionData>): boolean {
  if (!data.attemptedAt || !data.orderNo || !data.amount || !data.currency) return false;
  return hasNoResult(data.outcome);
}

/** One run over every configured account, under the run lock (waits for a run in progress). */
export async function runReconciliation(
  scope: MedusaContainer,
  options: ReconcileRunOptions = {},
): Promise<ReconcileReport> {
  return scope
    .resolve(Modules.LOCKING)
    .execute(RECONCILE_RUN_LOCK, () => reconcileGatewayPayments(scope, options), { timeout: 300 });
}

/** The run itself (no lock): every account's open charges, then its open refunds. */
export async function reconcileGatewayPayments(
  scope: MedusaContainer,
  options: ReconcileRunOptions = {},
): Promise<ReconcileReport> {
  const report: ReconcileReport = { attempts: [], refunds: [], chargebacks: [] };
  for (const account of resolveGatewaykitAccounts(scope)) {
    report.attempts.push(...(await reconcileAttempts(scope, account, options)));
    report.refunds.push(...(await reconcileRefunds(scope, account, options)));
    report.chargebacks.push(...(await reconcileChargebacks(scope, account, options)));
  }
  const logger = scope.resolve(ContainerRegistrationKeys.LOGGER);
  for (const line of report.chargebacks) {
    const what = `gatewaykit: chargeback ${line.batchNo || '?'} of ${line.orderNo || '?'} (account ${line.account})`;
    if (line.result === 'error') logger.error(`${what}: reconciliation failed: ${line.reason}`);
    else logger.info(`${what} recorded by the reconciliation: ${line.reason}`);
  }
  for (const line of report.attempts) {
    if (line.result !== 'none') {
      logger.info(
        `gatewaykit: reconciled ${line.orderNo}: ${line.result}, now ${line.status} (${line.reason})`,
      );
    }
  }
  return report;
}

async function reconcileAttempts(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  options: ReconcileRunOptions,
): Promise<AttemptLine[]> {
  const now = options.now ?? new Date();
  const { reconcileAfterMs, failUnrecordedAfterMs } = reconcileWaitsMs(account.options);
  const paymentModule = scope.resolve(Modules.PAYMENT);
  // `since` is the column the look-back reads: a card session may be created long before its charge
  // meets 3-D Secure, and the redirect is written to it then (updated_at).
  const listed = (status: string[], since: 'created_at' | 'updated_at', lookbackMs: number) =>
    paymentModule.listPaymentSessions(
      {
        provider_id: account.providerIds,
        status,
        ...(options.orderNos
          ? { id: [...options.orderNos] }
          : { [since]: { $gte: new Date(now.getTime() - lookbackMs) } }),
      } as never,
      { select: ['id', 'data', 'status', 'provider_id', 'updated_at'] },
    ) as Promise<PaymentSessionDTO[]>;
  const sessions = (
    await Promise.all([
      listed(OPEN_STATUSES, 'created_at', LOOKBACK_MS + HAND_OVER_WINDOW_MS),
      listed([REDIRECT_STATUS], 'updated_at', REDIRECT_LOOKBACK_MS + HAND_OVER_WINDOW_MS),
      // A late success stored over a failure keeps the session's `error` status until it is applied.
      listed([FAILED_STATUS], 'updated_at', REDIRECT_LOOKBACK_MS),
      options.orderNos ? [] : olderUncheckedFailures(scope, account, now),
    ])
  ).flat();
  const client = gatewayClientFor(account.options);
  const lines: AttemptLine[] = [];
  for (const session of sessions) {
    const data = readSessionData(session.data);
    if (data.outcome?.status === 'succeeded') {
      // Listed sessions are not authorized: a success stored but never applied. Its own callback's
      // path (or a repeated callback) is given reconcileAfterMs from the success's write to finish it,
      // and a minute even when an admin names the session (its recording may still be running).
      const age = now.getTime() - new Date(session.updated_at ?? 0).getTime();
      if (age < (options.orderNos ? STORED_SUCCESS_MIN_AGE_MS : reconcileAfterMs)) continue;
      lines.push(await appliedLine(scope, account, session.id));
      continue;
    }
    if (session.status === FAILED_STATUS) {
      // A failure whose cart nobody looked at (the process died right after recording it).
      if (data.unpaidOrderCheck === 'due') lines.push(await unpaidOrderLine(scope, account, session.id));
      continue;
    }
    if (!awaitsGatewayOutcome(data)) continue;
    const sentAt = new Date(data.attemptedAt!);
    // The job leaves young charges to their callback; an orderNo named by the admin is read now.
    if (!options.orderNos && now.getTime() - sentAt.getTime() < reconcileAfterMs) continue;
    const line = { orderNo: session.id, account: account.id };
    try {
      // The same decision as a callback: amount check, monotonic merge, the cart completed on success.
      const { decision, reason } = await reconcileAndRecord(
        client,
        new SessionAttempts(scope, account),
        {
          orderNo: session.id,
          sentAt,
          orderAmount: data.amount!,
          currency: data.currency!,
          stored: storedAnswerOf(data.outcome),
          flow: checkoutFlowOf(data.mode),
        },
        { now, pendingAfterMs: failUnrecordedAfterMs },
        (attempt: SessionAttempt) => storedAnswerOf(attempt.outcome),
        (found) => {
          if (!found.attention) return;
          scope
            .resolve(ContainerRegistrationKeys.LOGGER)
            .warn(`gatewaykit: ${session.id} needs a person: ${found.reason}`);
        },
      );
      const status = !decision
        ? (data.outcome?.status ?? 'sent')
        : decision.kind === 'changed'
          ? decision.next.status
          : decision.kind === 'duplicate' || decision.kind === 'stale'
            ? decision.current.status
            : decision.kind === 'held-back'
              ? (decision.attempt.outcome?.status ?? 'sent')
              : (data.outcome?.status ?? 'sent');
      const lookBackMs = session.status === REDIRECT_STATUS ? REDIRECT_LOOKBACK_MS : LOOKBACK_MS;
      const stillOpen = !['succeeded', 'failed'].includes(status);
      if (stillOpen && now.getTime() - sentAt.getTime() > lookBackMs) {
        // Asked for as long as the run looks back, and still nothing: a person takes over, told once.
        const handed = await new SessionAttempts(scope, account).handOver(session.id, reason);
        lines.push({
          ...line,
          result: handed ? 'handed-over' : (decision?.kind ?? 'none'),
          status,
          reason: `${reason}; ${handed ? 'reported as PAYMENT NOT SETTLED' : 'left to a person'}`,
        });
        continue;
      }
      lines.push({ ...line, result: decision?.kind ?? 'none', status, reason });
    } catch (error) {
      lines.push({
        ...line,
        result: 'error',
        status: data.outcome?.status ?? 'sent',
        reason: redactedErrorText(error),
      });
    }
  }
  const pages = await reconcileDeletedPages(scope, account, {
    now,
    orderNos: options.orderNos,
    pendingAfterMs: failUnrecordedAfterMs,
    // Past the page's own expiry in any case (failUnrecordedAfterSeconds may be set long).
    askForMs: Math.max(REDIRECT_LOOKBACK_MS, failUnrecordedAfterMs + 60 * 60 * 1000),
  });
  for (const page of pages) lines.push({ ...page, account: account.id });
  return lines;
}

/**
 * Failed sessions older than the look-back of failed sessions whose ORDER NOT PAID check is still due
 * (its process died, and the runs since failed or did not run): such a session holds its cart
 * (holdsCart), so it is looked for over the whole look-back, by the mark in its data.
 */
async function olderUncheckedFailures(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  now: Date,
): Promise<PaymentSessionDTO[]> {
  const db = scope.resolve(ContainerRegistrationKeys.PG_CONNECTION) as SqlDatabase;
  const { rows } = await db.raw(
    `SELECT id FROM payment_session
      WHERE status = ? AND deleted_at IS NULL AND data->>'unpaidOrderCheck' = 'due'
        AND updated_at >= ? AND updated_at < ?
        AND provider_id IN (${placeholders(account.providerIds)})`,
    [
      FAILED_STATUS,
      new Date(now.getTime() - LOOKBACK_MS),
      new Date(now.getTime() - REDIRECT_LOOKBACK_MS),
      ...account.providerIds,
    ],
  );
  if (rows.length === 0) return [];
  return (await scope
    .resolve(Modules.PAYMENT)
    .listPaymentSessions(
      { id: rows.map((row) => String(row.id)) },
      { select: ['id', 'data', 'status', 'provider_id', 'updated_at'] },
    )) as PaymentSessionDTO[];
}

function appliedLine(scope: MedusaContainer, account: GatewaykitAccount, orderNo: string) {
  return lineOf(orderNo, account, 'succeeded', () => applyStoredSuccess(scope, account, orderNo));
}

const UNPAID_ORDER_REASONS = {
  reported: 'failed after its order was placed: reported as ORDER NOT PAID',
  'not-needed': 'failed, and its cart is no order: nothing to report',
} as const;

function unpaidOrderLine(scope: MedusaContainer, account: GatewaykitAccount, orderNo: string) {
  return lineOf(orderNo, account, 'failed', async () => {
    const check = await new SessionAttempts(scope, account).checkUnpaidOrder(orderNo);
    return check
      ? { result: check === 'reported' ? 'reported' : 'none', reason: UNPAID_ORDER_REASONS[check] }
      : { result: 'none', reason: 'already looked at' };
  });
}

/** One session's line of the report from `work`; what it throws is the line's error. */
async function lineOf(
  orderNo: string,
  account: GatewaykitAccount,
  status: string,
  work: () => Promise<{ result: string; reason: string }>,
): Promise<AttemptLine> {
  const line = { orderNo, account: account.id, status };
  try {
    return { ...line, ...(await work()) };
  } catch (error) {
    return { ...line, result: 'error', reason: redactedErrorText(error) };
  }
}

type PaymentRow = { id: string; data?: Record<string, unknown> | null; payment_session_id?: string | null };

/**
 * The payments whose refunds a run looks at: those with a refund (a row, or an entry in their data, which
 * a refund whose Medusa row was deleted keeps alone) and a write within the look-back, and those with a refund still open and not yet
 * handed to a person, however old (a pending refund whose payment nobody writes must not drop out of
 * sight). Not every payment of the look-back: most have no refund.
 */
async function paymentsWithRefundsToLookAt(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  now: Date,
): Promise<string[]> {
  const db = scope.resolve(ContainerRegistrationKeys.PG_CONNECTION) as SqlDatabase;
  const { rows } = await db.raw(
    `SELECT p.id FROM payment p
      WHERE p.deleted_at IS NULL AND p.provider_id IN (${placeholders(account.providerIds)})
        AND ((p.updated_at >= ? AND (jsonb_typeof(p.data->'refunds') = 'array'
              OR EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = p.id AND r.deleted_at IS NULL)))
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p.data->'refunds') = 'array'
                                                         THEN p.data->'refunds' ELSE '[]'::jsonb END) entry
                      WHERE entry->>'status' IN ('pending', 'unknown') AND entry->>'alertedAt' IS NULL))`,
    [...account.providerIds, new Date(now.getTime() - LOOKBACK_MS)],
  );
  return rows.map((row) => String(row.id));
}

/**
 * A refund the gateway accepted (it has a refund number) and its records still do not settle, the
 * look-back after it was sent: handed to a person once (REFUND NOT SETTLED, then `alertedAt`), as the
 * Vendure reconciliation does. Later runs still read it while its payment is in the look-back.
 */
async function handOverAgedRefund(
  scope: MedusaContainer,
  store: SessionAttempts,
  payment: PaymentRow,
  refund: GatewayRefund,
  now: Date,
): Promise<string | undefined> {
  if (refund.alertedAt || now.getTime() - new Date(refund.requestedAt).getTime() < LOOKBACK_MS)
    return undefined;
  const data = readSessionData(payment.data ?? undefined);
  await reportPendingRefund(
    scope,
    { orderNo: data.orderNo ?? '', tradeNo: data.outcome?.tradeNo, paymentId: payment.id },
    refund,
  );
  await store.markRefundAlerted(data.orderNo ?? payment.payment_session_id ?? '', refund.merTrackNo, now);
  return "the gateway's records did not settle it in the look-back; the merchant was told to look it up";
}

async function reconcileRefunds(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  options: ReconcileRunOptions,
): Promise<RefundLine[]> {
  const now = options.now ?? new Date();
  const paymentModule = scope.resolve(Modules.PAYMENT);
  const { reconcileAfterMs } = reconcileWaitsMs(account.options);
  const ids = options.orderNos ? undefined : await paymentsWithRefundsToLookAt(scope, account, now);
  const payments =
    ids?.length === 0
      ? []
      : ((await paymentModule.listPayments(
          {
            provider_id: account.providerIds,
            ...(ids ? { id: ids } : { payment_session_id: [...options.orderNos!] }),
          } as never,
          { select: ['id', 'data', 'payment_session_id'] },
        )) as PaymentRow[]);
  const client = gatewayClientFor(account.options);
  const store = new SessionAttempts(scope, account);
  const lines: RefundLine[] = [];
  for (const payment of payments) {
    const data = readSessionData(payment.data ?? undefined);
    const orderNo = data.orderNo ?? payment.payment_session_id ?? undefined;
    if (!orderNo) continue;
    let restored: GatewayRefund[] = [];
    try {
      restored = await store.restoreMissingRefunds(orderNo, now);
    } catch (error) {
      lines.push({
        orderNo,
        merTrackNo: '',
        status: 'error',
        reason: `refund rows not read: ${redactedErrorText(error)}`,
      });
    }
    for (const refund of [...(data.refunds ?? []), ...restored]) {
      if (refund.status !== 'pending' && refund.status !== 'unknown') continue;
      const young = now.getTime() - new Date(refund.requestedAt).getTime() < reconcileAfterMs;
      if (!options.orderNos && young) continue;
      const line = { orderNo, merTrackNo: refund.merTrackNo, batchNo: refund.batchNo };
      try {
        if (!refund.batchNo) {
          lines.push({
            ...line,
            ...(await unconfirmedRefund(scope, store, payment, refund, now, reconcileAfterMs)),
          });
          continue;
        }
        const found = await reconcileRefund(client, refund.batchNo);
        if (!found.event) {
          const handedOver = await handOverAgedRefund(scope, store, payment, refund, now);
          lines.push({ ...line, status: refund.status, reason: handedOver ?? found.reason });
          continue;
        }
        // Settled as its notification would have: the same path, so it counts once.
        const settled = await store.settleRefund(orderNo, {
          ...found.event,
          merTrackNo: found.event.merTrackNo ?? refund.merTrackNo,
        });
        const status = settled && 'entry' in settled ? settled.entry.status : refund.status;
        lines.push({ ...line, status, reason: found.reason });
      } catch (error) {
        lines.push({ ...line, status: refund.status, reason: redactedErrorText(error) });
      }
    }
  }
  return lines;
}

/**
 * A refund whose answer was lost has no batchNo to query, and sending it again could refund twice:
 * only its notification can settle it. Past the threshold the merchant is told once to look it up.
 */
async function unconfirmedRefund(
  scope: MedusaContainer,
  store: SessionAttempts,
  payment: PaymentRow,
  refund: GatewayRefund,
  now: Date,
  reconcileAfterMs: number,
): Promise<{ status: string; reason: string }> {
  const age = now.getTime() - new Date(refund.requestedAt).getTime();
  const reason = 'the answer to the refund request was lost; only its notification can settle it';
  if (refund.alertedAt || age < reconcileAfterMs) return { status: refund.status, reason };
  // Past the threshold the merchant is told, once.
  const data = readSessionData(payment.data ?? undefined);
  await store.markRefundAlerted(data.orderNo ?? payment.payment_session_id ?? '', refund.merTrackNo, now);
  await reportUnsettledRefund(
    scope,
    { orderNo: data.orderNo ?? '', tradeNo: data.outcome?.tradeNo, paymentId: payment.id },
    refund,
  );
  return { status: refund.status, reason: `${reason}; the merchant was told to look it up` };
}
