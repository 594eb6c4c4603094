import { closeOpenAttempt } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, MedusaError, Modules } from '@medusajs/framework/utils';
import { closeNoteOf, isSessionId, refuseUnknownFields } from './admin-body';
import { reconcileWaitsMs } from './options';
import { resolveGatewaykitAccounts } from './resolve-options';
import { type SessionAttempt, SessionAttempts } from './session-attempts';
import { readSessionData } from './session-data';

/** What the admin asks: the session to close, and what they found in the merchant portal. */
export interface CloseAttemptInput {
  orderNo: string;
  note: string;
}

/**
 * Reads the admin's body, allow-listed: `orderNo` (a payment session id) and `note` (1 to 200
 * characters). Anything else is refused naming the field, before anything is read.
 */
export function closeAttemptInputOf(body: unknown): CloseAttemptInput {
  const { orderNo, note, ...rest } = (body ?? {}) as { orderNo?: unknown; note?: unknown };
  refuseUnknownFields(rest);
  if (!isSessionId(orderNo)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, 'orderNo: must be a payment session id');
  }
  return { orderNo, note: closeNoteOf(note) };
}

/**
 * Closes a gatewaykit session the reconciliation left open (docs/inbound.md#closing-an-attempt) for
 * the admin `actor`: core's closeOpenAttempt through the session's own account, so its cart is
 * freed under the cart's lock like any outcome. Says who closed it in the log.
 */
export async function closeSessionAttempt(
  scope: MedusaContainer,
  { orderNo, note }: CloseAttemptInput,
  actor: string,
): Promise<{ orderNo: string; status: string; reason: string }> {
  const [session] = (await scope.resolve(Modules.PAYMENT).listPaymentSessions({ id: [orderNo] } as never, {
    select: ['id', 'provider_id'],
  })) as PaymentSessionDTO[];
  const account = session
    ? resolveGatewaykitAccounts(scope).find((entry) => entry.providerIds.includes(session.provider_id))
    : undefined;
  if (!account) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `orderNo: no gatewaykit payment session ${orderNo}`);
  }
  const { failUnrecordedAfterMs, reconcileAfterMs } = reconcileWaitsMs(account.options);
  const result = await closeOpenAttempt(new SessionAttempts(scope, account), orderNo, note, {
    sentMsAgo,
    // The no-record window (no gateway page can still be paid after it), then the job's wait, so a run
    // has read the gateway since.
    closeAfterMs: failUnrecordedAfterMs + reconcileAfterMs,
  });
  if (result.kind === 'refused') throw new MedusaError(MedusaError.Types.NOT_ALLOWED, result.reason);
  scope
    .resolve(ContainerRegistrationKeys.LOGGER)
    .warn(`gatewaykit: ${orderNo} ${result.reason} (admin ${actor})`);
  return { orderNo, status: 'failed', reason: result.reason };
}

/** Since the session's charge was sent (its claim, `attemptedAt`), on this process's clock; undefined if never sent. */
function sentMsAgo(attempt: SessionAttempt): number | undefined {
  const attemptedAt = readSessionData(attempt.session.data).attemptedAt;
  const sentAt = attemptedAt ? Date.parse(attemptedAt) : Number.NaN;
  return Number.isNaN(sentAt) ? undefined : Date.now() - sentAt;
}
