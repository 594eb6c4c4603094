/**
 * A gateway payment that was given back before its cart became an order: refunded (Medusa's compensation
 * refunds a captured payment when the completion fails after it; a merchant may refund too, in Medusa or
 * in the gateway's portal, as the PAID BUT NOT APPLIED alert asks), canceled, or charged back by the
 * cardholder's bank. What the gateway notified is kept on the payment's data, or on the session's when
 * no Medusa payment took the success (lib/payment-notices.ts).
 * Such money never becomes an order (docs/SECURITY.md §6). One judgement, used by the store's completion
 * guard and by the paid-cart completion after a success.
 */

/** The fields the judgement needs, relative to a payment session (prefix them when read from further up). */
export const RETURNED_PAYMENT_FIELDS = [
  'data',
  'payment.id',
  'payment.canceled_at',
  'payment.refunds.id',
  'payment.data',
];

/** The relations those fields cross (`payment`, `payment.refunds`), for a payment module read of sessions. */
export const RETURNED_PAYMENT_RELATIONS = [
  ...new Set(
    RETURNED_PAYMENT_FIELDS.filter((field) => field.includes('.')).map((field) =>
      field.slice(0, field.lastIndexOf('.')),
    ),
  ),
];

export interface SessionPayment {
  data?: unknown;
  payment?: { canceled_at?: unknown; refunds?: unknown[] | null; data?: unknown } | null;
}

/** Whether a payment's or session's data holds any of `key` (a list the notices append to). */
function holds(data: unknown, key: 'refundedAtGateway' | 'chargebacks'): boolean {
  const list = (data as Record<string, unknown> | null | undefined)?.[key];
  return Array.isArray(list) && list.length > 0;
}

/** Why the session's payment is no longer money held, or undefined while it is (or there is none yet). */
export function whyPaymentReturned(session: SessionPayment | undefined): string | undefined {
  const payment = session?.payment;
  if (payment?.canceled_at) return 'was canceled in Medusa';
  if (payment?.refunds?.length) return 'was refunded';
  const data = [payment?.data, session?.data];
  if (data.some((d) => holds(d, 'refundedAtGateway'))) return 'was refunded at the gateway';
  if (data.some((d) => holds(d, 'chargebacks'))) return "was charged back by the cardholder's bank";
  return undefined;
}
