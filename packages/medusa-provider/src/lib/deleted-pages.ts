import { checkoutFlowOf, gatewayClientFor, reconcileAttempt } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import { reportUnappliedCharge, reportUnsettledPage } from './merchant-alerts';
import { chargeStateOf } from './open-charges';
import type { GatewaykitAccount } from './resolve-options';
import type { GatewaykitSessionData } from './session-data';

/**
 * Gateway pages whose payment session Medusa deleted (docs/payment-states.md#a-page-whose-session-was-deleted).
 * A cart change while the shopper has a hosted, local-method or 3-D Secure page open makes Medusa
 * hard-delete the session, and the gateway has no call that closes a page: a payment made there later
 * reaches no cart. The callback reports it (PAID BUT NOT APPLIED); so that it is reported when every
 * callback is lost too, the provider keeps what the reconciliation needs of such a session in a table
 * its migrations create, before Medusa deletes the row. The run asks the gateway about each page until
 * it is paid (reported once, by the run or the callback, whichever comes first) or expired.
 */

/** One kept page: what was sent, and for which provider. */
export interface DeletedPage {
  orderNo: string;
  providerId: string;
  amount: string;
  currency: string;
  mode: string;
  attemptedAt: Date;
  deletedAt: Date;
}

/**
 * How a kept page ended: paid and reported; not paid before it expired; or not settled by the gateway's
 * records while the run asked (reported for a person to look up). Only `reported` is final: a payment
 * reported later still overrides the others.
 */
export type DeletedPageEnd = 'reported' | 'expired' | 'unsettled';

/**
 * Whether a session being deleted had a gateway page that may still take a payment: one the shopper was
 * sent to and has not paid on, or one a failure was recorded for (a hosted page may let the shopper try
 * another card after a decline).
 */
export function mayStillBePaid(data: Partial<GatewaykitSessionData>): boolean {
  const state = chargeStateOf(data);
  return state === 'redirect' || (state === 'failed' && Boolean(data.redirectUrl && data.attemptedAt));
}

export class DeletedPages {
  constructor(private readonly db: SqlDatabase) {}

  /**
   * Keeps the page of session `data.orderNo`, read before Medusa deletes its row (the row gives the
   * provider). Kept once: a second deletion of the same session changes nothing.
   */
  async keep(data: Partial<GatewaykitSessionData>): Promise<void> {
    if (!data.orderNo) return;
    // What older sessions lack comes from the row: the amount only names the payment in an alert (the
    // gateway's record gives the real one), and the row's last update is no earlier than the page.
    await this.db.raw(
      `INSERT INTO gatewaykit_deleted_page (order_no, provider_id, amount, currency, mode, attempted_at)
       SELECT id, provider_id, COALESCE(?, amount::text), COALESCE(?, upper(currency_code)), ?,
              COALESCE(CAST(? AS timestamptz), updated_at)
         FROM payment_session WHERE id = ?
       ON CONFLICT (order_no) DO UPDATE SET deleted_at = now()
        WHERE gatewaykit_deleted_page.ended_as IS NULL`,
      [data.amount ?? null, data.currency ?? null, data.mode ?? '', data.attemptedAt ?? null, data.orderNo],
    );
  }

  /**
   * The kept pages of `providerIds` not ended yet (those named, or all), whose session is really gone (a
   * deletion whose transaction rolled back leaves the session, which the run reads as any other) and
   * never became a payment (a success applied while the deletion was under way).
   */
  async open(providerIds: readonly string[], orderNos?: readonly string[]): Promise<DeletedPage[]> {
    if (orderNos?.length === 0) return [];
    const { rows } = await this.db.raw(
      `SELECT d.order_no, d.provider_id, d.amount, d.currency, d.mode, d.attempted_at, d.deleted_at
         FROM gatewaykit_deleted_page d
        WHERE d.ended_as IS NULL AND d.provider_id IN (${placeholders(providerIds)})
          ${orderNos ? `AND d.order_no IN (${placeholders(orderNos)})` : ''}
          AND NOT EXISTS (SELECT 1 FROM payment_session s WHERE s.id = d.order_no AND s.deleted_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM payment p WHERE p.payment_session_id = d.order_no)
        ORDER BY d.deleted_at`,
      [...providerIds, ...(orderNos ?? [])],
    );
    return rows.map(
      (row): DeletedPage => ({
        orderNo: String(row.order_no),
        providerId: String(row.provider_id),
        amount: String(row.amount),
        currency: String(row.currency),
        mode: String(row.mode),
        attemptedAt: new Date(row.attempted_at as string | Date),
        deletedAt: new Date(row.deleted_at as string | Date),
      }),
    );
  }

  /**
   * Whether a page of `providerIds` was kept for `orderNo`, and how it ended (no end: still open). Only
   * the account's own providers: another account's key (a test account's may be public) must not end
   * this account's pages.
   */
  async endOf(
    orderNo: string,
    providerIds: readonly string[],
  ): Promise<{ kept: boolean; end?: DeletedPageEnd }> {
    const { rows } = await this.db.raw(
      `SELECT ended_as FROM gatewaykit_deleted_page WHERE order_no = ? AND provider_id IN (${placeholders(providerIds)})`,
      [orderNo, ...providerIds],
    );
    const row = rows[0];
    return row
      ? { kept: true, end: (row.ended_as ?? undefined) as DeletedPageEnd | undefined }
      : { kept: false };
  }

  /** Ends the page; a report is final, and only a report replaces another end. */
  async end(orderNo: string, as: DeletedPageEnd): Promise<void> {
    await this.db.raw(
      `UPDATE gatewaykit_deleted_page SET ended_as = ?, ended_at = now()
        WHERE order_no = ? AND (ended_as IS NULL OR (ended_as <> 'reported' AND ? = 'reported'))`,
      [as, orderNo, as],
    );
  }
}

/**
 * Reports a payment the gateway took for orderNo that no session holds, once per kept page: under a
 * lock of the orderNo, so the run and a callback (on any instance) do not both report it. `report` gets
 * the reason to give; it runs before the page is marked, so a process that dies in between reports
 * again rather than never. A page that was not kept (never one, or its record cannot be read) is
 * reported every time, as before.
 */
export async function reportPaidWithoutSession(
  scope: MedusaContainer,
  providerIds: readonly string[],
  orderNo: string,
  reason: string,
  report: (reason: string) => Promise<void>,
): Promise<'reported' | 'already-reported'> {
  const pages = pagesOf(scope);
  return underPageLock(scope, orderNo, async () => {
    let kept: Awaited<ReturnType<DeletedPages['endOf']>> = { kept: false };
    try {
      kept = await pages.endOf(orderNo, providerIds);
    } catch (error) {
      scope
        .resolve(ContainerRegistrationKeys.LOGGER)
        .warn(
          `gatewaykit: deleted pages could not be read for ${orderNo} (${describe(error)}); reporting anyway`,
        );
    }
    if (kept.end === 'reported') return 'already-reported';
    await report(
      kept.kept
        ? `${reason}: its payment session was deleted (the cart changed) while the shopper had its gateway page open`
        : reason,
    );
    if (kept.kept) await pages.end(orderNo, 'reported');
    return 'reported';
  });
}

/** Under a lock of the orderNo: the run and a callback, on any instance, decide one after the other. */
function underPageLock<T>(scope: MedusaContainer, orderNo: string, work: () => Promise<T>): Promise<T> {
  return scope.resolve(Modules.LOCKING).execute(`gatewaykit:deleted-page:${orderNo}`, work, { timeout: 60 });
}

function pagesOf(scope: MedusaContainer): DeletedPages {
  return new DeletedPages(scope.resolve(ContainerRegistrationKeys.PG_CONNECTION));
}

export interface DeletedPageRunOptions {
  now: Date;
  /** Only these orderNos (an admin's run). */
  orderNos?: readonly string[] | undefined;
  /** From when its page was asked for, after which a page not paid has expired (failUnrecordedAfterSeconds). */
  pendingAfterMs: number;
  /** From its deletion, how long a page the gateway's records do not settle is asked about. */
  askForMs: number;
}

/** What the run did with one kept page: its line in the reconciliation's report. */
export interface DeletedPageResult {
  /** The kept page's orderNo; `*` when the kept pages could not be read at all. */
  orderNo: string;
  /** `reported` (paid, or not settled in time), `ended` (not paid, expired), `none` (asked again). */
  result: 'reported' | 'ended' | 'none' | 'error';
  /** What the gateway's record shows: `succeeded`, `failed`, `unknown`, `pending`, or `redirect` (nothing yet). */
  status: string;
  reason: string;
}

/**
 * The reconciliation's pass over `account`'s kept pages: each is asked about as the page it was (core's
 * reconcileAttempt with the shopper sent to it). Paid: reported once (reportPaidWithoutSession). A
 * failure ends it only past `pendingAfterMs` from when the page was made, after which the gateway's
 * pages have expired (before that, a hosted page may still take another card). Anything else is asked
 * again on the next run, for as long as the run looks back.
 */
export async function reconcileDeletedPages(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  options: DeletedPageRunOptions,
): Promise<DeletedPageResult[]> {
  const pages = pagesOf(scope);
  let open: DeletedPage[];
  try {
    open = await pages.open(account.providerIds, options.orderNos);
  } catch (error) {
    // The rest of the run (open charges, refunds) must not depend on this table (a migration not run).
    const reason = `the pages kept for deleted sessions could not be read (${describe(error)}); run \`npx medusa db:migrate\``;
    scope.resolve(ContainerRegistrationKeys.LOGGER).error(`gatewaykit: ${reason}`);
    return [{ orderNo: '*', result: 'error', status: 'redirect', reason }];
  }
  const results: DeletedPageResult[] = [];
  for (const page of open) {
    try {
      results.push(await reconcileDeletedPage(scope, account, pages, page, options));
    } catch (error) {
      results.push({ orderNo: page.orderNo, result: 'error', status: 'redirect', reason: describe(error) });
    }
  }
  return results;
}

async function reconcileDeletedPage(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  pages: DeletedPages,
  page: DeletedPage,
  options: DeletedPageRunOptions,
): Promise<DeletedPageResult> {
  const { orderNo } = page;
  const found = await reconcileAttempt(
    gatewayClientFor(account.options),
    {
      orderNo,
      sentAt: page.attemptedAt,
      orderAmount: page.amount,
      currency: page.currency,
      stored: { status: 'redirect' },
      flow: checkoutFlowOf(page.mode),
    },
    { now: options.now, pendingAfterMs: options.pendingAfterMs },
  );
  const outcome = found.outcome;
  if (outcome?.status === 'succeeded') {
    const paid = {
      ...outcome,
      amount: outcome.amount ?? page.amount,
      currency: outcome.currency ?? page.currency,
    };
    const said = await reportPaidWithoutSession(
      scope,
      account.providerIds,
      orderNo,
      `the gateway's record shows it paid, and no payment session of provider account "${account.id}" holds it`,
      (why) => reportUnappliedCharge(scope, paid, why),
    );
    return {
      orderNo,
      result: said === 'reported' ? 'reported' : 'none',
      status: 'succeeded',
      reason: `paid on a page whose session was deleted: ${said === 'reported' ? 'reported as PAID BUT NOT APPLIED' : 'already reported'}`,
    };
  }
  const now = options.now.getTime();
  const status = outcome?.status ?? 'redirect';
  if (outcome?.status === 'failed' && now - page.attemptedAt.getTime() > options.pendingAfterMs) {
    await underPageLock(scope, orderNo, () => pages.end(orderNo, 'expired'));
    return {
      orderNo,
      result: 'ended',
      status,
      reason: `not paid on a page whose session was deleted (${found.reason}); no longer asked about`,
    };
  }
  if (found.attention) {
    scope
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`gatewaykit: ${orderNo} (a page whose session was deleted) needs a person: ${found.reason}`);
  }
  if (now - page.deletedAt.getTime() <= options.askForMs) {
    return { orderNo, result: 'none', status, reason: `a page whose session was deleted: ${found.reason}` };
  }
  // Asked about for long enough: a person looks it up, once.
  const reported = await underPageLock(scope, orderNo, async () => {
    if ((await pages.endOf(orderNo, account.providerIds)).end) return false;
    const asked = {
      orderNo,
      status: 'unknown' as const,
      reason: found.reason,
      amount: page.amount,
      currency: page.currency,
    };
    await reportUnsettledPage(scope, asked, found.reason);
    await pages.end(orderNo, 'unsettled');
    return true;
  });
  return {
    orderNo,
    result: reported ? 'reported' : 'none',
    status,
    reason: `a page whose session was deleted, not settled by the gateway's records: ${found.reason}${reported ? '; reported as PAGE NOT SETTLED' : ''}`,
  };
}

/** One `?` per value (knex's raw bindings take no arrays as one value). */
function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
