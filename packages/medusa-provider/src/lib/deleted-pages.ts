import { redactedErrorText } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import type { GatewayChargeback } from './gateway-records';
import type { GatewaykitSessionData } from './session-data';
import { placeholders } from './sql-placeholders';

/**
 * Gateway pages whose payment session Medusa deleted (docs/payment-states.md#a-page-whose-session-was-deleted).
 * A cart change while the shopper has a hosted, local-method or 3-D Secure page open makes Medusa
 * hard-delete the session, and the gateway has no call that closes a page: a payment made there later
 * reaches no cart. The callback reports it (PAID BUT NOT APPLIED); so that it is reported when every
 * callback is lost too, the provider keeps what the reconciliation needs of such a session in a table
 * its migrations create, before Medusa deletes the row. The run asks the gateway about each page until
 * it is paid (reported once, by the run or the callback, whichever comes first) or expired
 * (lib/reconcile-deleted-pages.ts).
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

export class DeletedPages {
  constructor(private readonly db: SqlDatabase) {}

  /**
   * Keeps the page of session `data.orderNo`, read before Medusa deletes its row (the row gives the
   * provider). One row per page: a second deletion of the same session (the first one's transaction
   * rolled back) only moves its deletion time.
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

  /**
   * The chargebacks kept on the page of `orderNo` (lib/deleted-page-chargebacks.ts), if `providerIds`
   * kept one (as endOf: another account's key never reaches this account's pages) and it never became a
   * payment (as open: a payment holds its own chargebacks).
   */
  async chargebacksOf(
    orderNo: string,
    providerIds: readonly string[],
  ): Promise<GatewayChargeback[] | undefined> {
    const { rows } = await this.db.raw(
      `SELECT d.chargebacks FROM gatewaykit_deleted_page d
        WHERE d.order_no = ? AND d.provider_id IN (${placeholders(providerIds)})
          AND NOT EXISTS (SELECT 1 FROM payment p WHERE p.payment_session_id = d.order_no)`,
      [orderNo, ...providerIds],
    );
    const row = rows[0];
    return row ? ((row.chargebacks ?? []) as GatewayChargeback[]) : undefined;
  }

  /** Replaces the page's chargebacks; the caller holds the page lock and read them under it. */
  async writeChargebacks(
    orderNo: string,
    providerIds: readonly string[],
    chargebacks: readonly GatewayChargeback[],
  ): Promise<void> {
    await this.db.raw(
      `UPDATE gatewaykit_deleted_page SET chargebacks = CAST(? AS jsonb)
        WHERE order_no = ? AND provider_id IN (${placeholders(providerIds)})`,
      [JSON.stringify(chargebacks), orderNo, ...providerIds],
    );
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
          `gatewaykit: deleted pages could not be read for ${orderNo} (${redactedErrorText(error)}); reporting anyway`,
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
export function underPageLock<T>(
  scope: MedusaContainer,
  orderNo: string,
  work: () => Promise<T>,
): Promise<T> {
  return scope.resolve(Modules.LOCKING).execute(`gatewaykit:deleted-page:${orderNo}`, work, { timeout: 60 });
}

export function pagesOf(scope: MedusaContainer): DeletedPages {
  return new DeletedPages(scope.resolve(ContainerRegistrationKeys.PG_CONNECTION));
}
