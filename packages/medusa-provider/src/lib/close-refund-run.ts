import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, MedusaError, Modules } from '@medusajs/framework/utils';
import { closeNoteOf, refuseUnknownFields } from './admin-body';
import type { SqlDatabase } from './charge-claim';
import { DEFAULT_NOT_MADE_CLOSE_AFTER_SECONDS } from './options';
import { PaymentDataWrites } from './payment-data-writes';
import { resolveGatewaykitAccounts } from './resolve-options';
import { SessionAttempts } from './session-attempts';
import { readSessionData } from './session-data';
import { placeholders } from './sql-placeholders';

/** What the admin asks: the refund (Medusa's refund id, the gateway's merTrackNo), and what the portal shows. */
export interface CloseRefundInput {
  merTrackNo: string;
  made: boolean;
  note: string;
}

/** Reads the admin's body, allow-listed: `merTrackNo`, `made` (true or false) and `note`. */
export function closeRefundInputOf(body: unknown): CloseRefundInput {
  const { merTrackNo, made, note, ...rest } = (body ?? {}) as Record<string, unknown>;
  refuseUnknownFields(rest);
  if (typeof merTrackNo !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(merTrackNo)) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'merTrackNo: must be a refund id (letters, digits, _ and -)',
    );
  }
  if (typeof made !== 'boolean') {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'made: must be true or false (what the merchant portal shows)',
    );
  }
  return { merTrackNo, made, note: closeNoteOf(note) };
}

/**
 * Closes a gateway refund that no answer, notice or read of the gateway's records settled (its answer
 * lost, REFUND UNCONFIRMED; accepted and never settled, REFUND NOT SETTLED; its Medusa record lost), once
 * the merchant portal shows how it ended (docs/safety-rules.md#refund-intents). Decided under the
 * payment's cart lock, like a notice. `made: true` keeps it as made (a refund without a Medusa row still
 * blocks further refunds through Medusa); `made: false`, only a day after it was sent, marks it failed:
 * nothing was returned, and refunds through Medusa count without it.
 */
export async function closeLostRefund(
  scope: MedusaContainer,
  { merTrackNo, made, note }: CloseRefundInput,
  actor: string,
  now: Date = new Date(),
): Promise<{ merTrackNo: string; status: string; reason: string }> {
  const accounts = resolveGatewaykitAccounts(scope);
  const providerIds = accounts.flatMap((account) => account.providerIds);
  const db = scope.resolve(ContainerRegistrationKeys.PG_CONNECTION) as SqlDatabase;
  const { rows } = await db.raw(
    `SELECT id, provider_id, payment_session_id FROM payment
      WHERE deleted_at IS NULL AND provider_id IN (${placeholders(providerIds)})
        AND data->'refunds' @> ?::jsonb`,
    [...providerIds, JSON.stringify([{ merTrackNo }])],
  );
  const [row] = rows as { id: string; provider_id: string; payment_session_id: string | null }[];
  const account = row && accounts.find((entry) => entry.providerIds.includes(row.provider_id));
  if (!row || !account || !row.payment_session_id) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `merTrackNo: no gatewaykit refund ${merTrackNo}`);
  }
  const paymentId = row.id;
  const reason = `closed by an administrator as ${made ? 'made' : 'not made'}: ${note}`;
  const status = await new SessionAttempts(scope, account).exclusive(row.payment_session_id, async () => {
    const [payment] = await scope
      .resolve(Modules.PAYMENT)
      .listPayments({ id: paymentId }, { select: ['id', 'data'] });
    const data = readSessionData((payment?.data ?? undefined) as Record<string, unknown> | undefined);
    const refund = data.refunds?.find((entry) => entry.merTrackNo === merTrackNo);
    if (!refund)
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `merTrackNo: no gatewaykit refund ${merTrackNo}`);
    if (refund.status !== 'unknown' && refund.status !== 'pending') {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `refund ${merTrackNo} is already ${refund.status}`,
      );
    }
    // How old a refund must be before it is closed as not made: a refund whose answer was lost may still
    // be under way at the gateway, and its merchant portal may not show it yet. An unreadable time is
    // never old enough.
    const waitSeconds = account.options.notMadeCloseAfterSeconds ?? DEFAULT_NOT_MADE_CLOSE_AFTER_SECONDS;
    if (!made && !(now.getTime() - new Date(refund.requestedAt).getTime() >= waitSeconds * 1000)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `refund ${merTrackNo} was sent at ${refund.requestedAt}: it may still be under way at the gateway; it can be closed as not made ${spokenWait(waitSeconds)} after it was sent`,
      );
    }
    const settled = made ? 'succeeded' : 'failed';
    await new PaymentDataWrites(db).putRefund(paymentId, {
      ...refund,
      status: settled,
      reason,
      settledAt: now.toISOString(),
      sending: undefined,
    });
    return settled;
  });
  scope
    .resolve(ContainerRegistrationKeys.LOGGER)
    .warn(`gatewaykit: refund ${merTrackNo} of payment ${paymentId} ${reason} (admin ${actor})`);
  // Not made, yet Medusa still holds its refund row: the order shows money returned that was not.
  const [medusaRefund] = made ? [] : await scope.resolve(Modules.PAYMENT).listRefunds({ id: merTrackNo });
  const shown = medusaRefund
    ? '; Medusa still records this refund, so the order shows the money returned: settle it with the customer'
    : '';
  return { merTrackNo, status, reason: `${reason}${shown}` };
}

/** The wait as the admin reads it: whole hours as hours, anything else in seconds. */
function spokenWait(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} hours` : `${seconds} s`;
}
