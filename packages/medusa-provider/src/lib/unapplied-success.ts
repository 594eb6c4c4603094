import type { MedusaContainer } from '@medusajs/framework/types';
import { reportUnappliedCharge } from './merchant-alerts';
import type { GatewaykitAccount } from './resolve-options';
import { SessionAttempts } from './session-attempts';
import { readSessionData } from './session-data';

/**
 * A success stored in its session but never authorized into the cart: the success is saved first and
 * applied after (Medusa's payment workflow, then the cart's completion), so a process killed in between,
 * or a workflow that threw, leaves the money taken with no order. A repeated callback finishes it; when
 * none comes (the gateway's retries ran out, or the reconciliation itself recorded the success), the
 * reconciliation applies it the way a first success is applied. What still does not become an order
 * is reported once as PAID BUT NOT APPLIED, marked in the session's data, and left to a person
 * (docs/payment-states.md#a-success-stored-but-not-applied).
 */

export interface UnappliedSuccessResult {
  result: 'applied' | 'reported' | 'none';
  reason: string;
}

export async function applyStoredSuccess(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  orderNo: string,
): Promise<UnappliedSuccessResult> {
  const store = new SessionAttempts(scope, account);
  const attempt = await store.find(orderNo);
  const outcome = attempt?.outcome;
  if (!attempt || outcome?.status !== 'succeeded') return { result: 'none', reason: 'no stored success' };
  if (attempt.session.authorized_at) return { result: 'none', reason: 'already authorized into its cart' };
  const reportedAt = readSessionData(attempt.session.data).unappliedReportedAt;
  if (reportedAt) return { result: 'none', reason: reportedReason(reportedAt) };
  let failure: string | undefined;
  try {
    // The first success's own path: it authorizes, completes the cart, and reports (and marks) what
    // it cannot.
    await store.afterChange(attempt, outcome);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  // Judged under the cart's lock: another instance still applying the same success holds it, and its
  // order is seen here instead of being reported as missing.
  return store.exclusive(orderNo, async () => {
    const after = await store.find(orderNo);
    if (after?.inPlacedOrder) return { result: 'applied', reason: 'the stored success is now its order' };
    if (after?.outcome?.status !== 'succeeded')
      return { result: 'none', reason: 'the session changed meanwhile' };
    const marked = readSessionData(after.session.data).unappliedReportedAt;
    if (marked) return { result: 'reported', reason: reportedReason(marked) };
    if (after.session.authorized_at) {
      // Authorized, cart still open: completePaidCart reported it (its first try, as for a callback).
      return { result: 'reported', reason: 'authorized, but its cart could not be completed' };
    }
    const why = failure ? `recording it into its cart failed (${failure})` : 'no order could be made of it';
    await reportUnappliedCharge(scope, outcome, why);
    await store.markUnappliedReported(after.session);
    return { result: 'reported', reason: `paid, but ${why}: reported as PAID BUT NOT APPLIED` };
  });
}

function reportedReason(at: string): string {
  return `reported as PAID BUT NOT APPLIED at ${at}; a person settles it`;
}
