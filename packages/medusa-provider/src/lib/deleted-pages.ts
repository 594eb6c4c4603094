import { checkoutFlowOf, gatewayClientFor, reconcileAttempt } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import { reportUnappliedCharge } from './merchant-alerts';
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
}

/** How a kept page ended: paid and reported, or not paid before it expired. */
export type DeletedPageEnd = 'reported' | 'expired';

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
    const { orderNo, amount, currency, mode, attemptedAt } = data;
    if (!orderNo || !amount || !currency || !mode || !attemptedAt) {
      throw new Error(
        `gatewaykit: session ${orderNo ?? '?'} lacks what its open page needs kept; not deleted`,
      );
    }
    await this.db.raw(
      `INSERT INTO gatewaykit_deleted_page (order_no, provider_id, amount, currency, mode, attempted_at)
       SELECT id, provider_id, ?, ?, ?, ? FROM payment_session WHERE id = ?
       ON CONFLICT (order_no) DO NOTHING`,
      [amount, currency, mode, attemptedAt, orderNo],
    );
  }

  /**
   * The kept pages of `providerIds` not ended yet, whose session is really gone (a deletion whose
   * transaction rolled back leaves the session, which the run reads as any other): those named, or
   * those deleted since `since`.
   */
  async open(
    providerIds: readonly string[],
    scope: { orderNos?: readonly string[] | undefined; since: Date },
  ): Promise<DeletedPage[]> {
    if (scope.orderNos?.length === 0) return [];
    const { rows } = await this.db.raw(
      `SELECT d.order_no, d.provider_id, d.amount, d.currency, d.mode, d.attempted_at
         FROM gatewaykit_deleted_page d
        WHERE d.ended_as IS NULL AND d.provider_id IN (${placeholders(providerIds)})
          AND ${scope.orderNos ? `d.order_no IN (${placeholders(scope.orderNos)})` : 'd.deleted_at >= ?'}
          AND NOT EXISTS (SELECT 1 FROM payment_session s WHERE s.id = d.order_no AND s.deleted_at IS NULL)
        ORDER BY d.deleted_at`,
      [...providerIds, ...(scope.orderNos ?? [scope.since])],
    );
    return rows.map(
      (row): DeletedPage => ({
        orderNo: String(row.order_no),
        providerId: String(row.provider_id),
        amount: String(row.amount),
        currency: String(row.currency),
        mode: String(row.mode),
        attemptedAt: new Date(row.attempted_at as string | Date),
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

  async end(orderNo: string, as: DeletedPageEnd): Promise<void> {
    await this.db.raw(
      'UPDATE gatewaykit_deleted_page SET ended_as = ?, ended_at = now() WHERE order_no = ?',
      [as, orderNo],
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
  const pages = new DeletedPages(scope.resolve(ContainerRegistrationKeys.PG_CONNECTION));
  return scope.resolve(Modules.LOCKING).execute(
    `gatewaykit:deleted-page:${orderNo}`,
    async () => {
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
    },
    { timeout: 60 },
  );
}

/** What the run did with one kept page: its line in the reconciliation's report. */
export interface DeletedPageResult {
  /** The kept page's orderNo; `*` when the kept pages could not be read at all. */
  orderNo: string;
  /** `reported` (paid), `ended` (not paid, expired), `none` (asked again next run). */
  result: 'reported' | 'ended' | 'none' | 'error';
  /** What the gateway's record shows: `succeeded`, `failed`, or `redirect` (nothing final yet). */
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
  options: { now: Date; since: Date; orderNos?: readonly string[] | undefined; pendingAfterMs: number },
): Promise<DeletedPageResult[]> {
  const pages = new DeletedPages(scope.resolve(ContainerRegistrationKeys.PG_CONNECTION));
  let open: DeletedPage[];
  try {
    open = await pages.open(account.providerIds, options);
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
  options: { now: Date; pendingAfterMs: number },
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
  const expired = options.now.getTime() - page.attemptedAt.getTime() > options.pendingAfterMs;
  if (outcome?.status === 'failed' && expired) {
    await pages.end(orderNo, 'expired');
    return {
      orderNo,
      result: 'ended',
      status: 'failed',
      reason: `not paid on a page whose session was deleted (${found.reason}); no longer asked about`,
    };
  }
  return {
    orderNo,
    result: 'none',
    status: outcome?.status ?? 'redirect',
    reason: `a page whose session was deleted: ${found.reason}`,
  };
}

/** One `?` per value (knex's raw bindings take no arrays as one value). */
function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
