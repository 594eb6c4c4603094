import type { PaymentOutcome } from '@gatewaykit/core';
import type { GatewaykitSessionData } from './session-data';

/**
 * Where a session's money-moving request stands (docs/SECURITY.md, exactly once):
 * - `not-sent`: nothing went to the gateway; the session may be dropped or replaced;
 * - `redirect`: the shopper was sent to a gateway page and has not paid there yet;
 * - `failed`: the gateway refused; nothing was taken;
 * - `open`: money was or may have been taken (success, pending, unknown, or sent without an answer
 *   recorded): no other charge for the cart may start, and the session must not be forgotten.
 */
export type ChargeState = 'not-sent' | 'redirect' | 'failed' | 'open';

export function chargeStateOf(data: Partial<GatewaykitSessionData>): ChargeState {
  if (!data.attemptedAt && !data.outcome) return 'not-sent';
  if (data.outcome?.status === 'failed') return 'failed';
  if (data.outcome?.status === 'redirect') return 'redirect';
  return 'open';
}

/**
 * No result yet: a charge sent without an answer, answered unknown or pending, or a shopper sent to a
 * gateway page (who may still pay there).
 */
export function hasNoResult(outcome: PaymentOutcome | undefined): boolean {
  const status = outcome?.status;
  return status === undefined || status === 'unknown' || status === 'pending' || status === 'redirect';
}

/** The sessions of one payment collection, as the payment module's own session service lists them. */
export interface StoredSessions {
  retrieve(
    id: string,
    config: { select: string[] },
  ): Promise<{ data?: Record<string, unknown> | null; payment_collection_id?: string | null }>;
  update(input: { id: string; data?: Record<string, unknown>; status?: 'canceled' }): Promise<unknown>;
  list(
    filters: { payment_collection_id: string },
    config: { select: string[] },
  ): Promise<{ id: string; provider_id: string; data?: Record<string, unknown> | null }[]>;
}

type SessionRow = { id: string; provider_id: string; data?: Record<string, unknown> | null };

/**
 * Whether a session must stay and hold its cart: its charge is open, or a failure recorded for it has
 * not been checked against the cart's order yet (`unpaidOrderCheck: due`, lib/session-attempts.ts):
 * deleting it would lose the ORDER NOT PAID report the check owes.
 */
export function holdsCart(data: Partial<GatewaykitSessionData>): boolean {
  return chargeStateOf(data) === 'open' || data.unpaidOrderCheck === 'due';
}

/** The first gatewaykit session among `sessions` (other than `exceptId`) that holds its cart. */
export function firstCartHolder(
  sessions: readonly (SessionRow | null)[],
  exceptId?: string,
): SessionRow | undefined {
  return sessions.find(
    (session): session is SessionRow =>
      isGatewaykitSession(session) &&
      session.id !== exceptId &&
      holdsCart((session.data ?? {}) as Partial<GatewaykitSessionData>),
  );
}

/**
 * The first gatewaykit session among `sessions` with a gateway page that may still take a payment: one
 * the shopper was sent to, or one a decline was recorded for (the page may let them try another card).
 */
export function firstOpenPage(sessions: readonly (SessionRow | null)[]): string | undefined {
  return sessions.find(
    (session): session is SessionRow =>
      isGatewaykitSession(session) && mayStillBePaid((session.data ?? {}) as Partial<GatewaykitSessionData>),
  )?.id;
}

function isGatewaykitSession(session: SessionRow | null): session is SessionRow {
  return !!session && session.provider_id.startsWith('pp_gatewaykit');
}

/**
 * Whether a session being deleted had a gateway page that may still take a payment: one the shopper was
 * sent to and has not paid on, or one a failure was recorded for (a hosted page may let the shopper try
 * another card after a decline).
 */
export function mayStillBePaid(data: Partial<GatewaykitSessionData>): boolean {
  const state = chargeStateOf(data);
  return state === 'redirect' || (state === 'failed' && Boolean(data.redirectUrl && data.attemptedAt));
}
