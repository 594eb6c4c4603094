import type { PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { reportUnappliedCharge } from './merchant-alerts';
import { PaymentDataWrites } from './payment-data-writes';
import { readSessionData } from './session-data';

/**
 * A Medusa payment canceled without a refund while the gateway took the money: Medusa's completion
 * compensation cancels the payment when a step after it fails (cancelPayment is a no-op here, the
 * gateway has no void) and its refund may fail too. Medusa then shows no money, the gateway holds it,
 * and no order is placed: the merchant must refund it in the portal (docs/SECURITY.md §6).
 */

export interface HeldPayment {
  payment?: {
    id?: string;
    canceled_at?: unknown;
    refunds?: unknown[] | null;
    data?: Record<string, unknown> | null;
  } | null;
}

/** The payment fields `alertHeldPaymentOnce` needs, relative to a payment session. */
export const HELD_PAYMENT_FIELDS = [
  'payment.id',
  'payment.canceled_at',
  'payment.refunds.id',
  'payment.data',
];

export function isHeldAfterCancel(session: HeldPayment | undefined): boolean {
  const payment = session?.payment;
  return Boolean(payment?.canceled_at) && !payment?.refunds?.length;
}

/**
 * Alerts PAID BUT NOT APPLIED for a held payment, once: the mark lives in the payment's data, so a
 * repeated callback or return, on any instance, finds it and stays quiet. Alerted before the mark is
 * written: a crash between the two repeats the alert rather than losing it.
 */
export async function alertHeldPaymentOnce(
  scope: MedusaContainer,
  session: HeldPayment,
  outcome: PaymentOutcome,
): Promise<void> {
  const payment = session.payment;
  if (!payment?.id) return;
  const data = readSessionData(payment.data ?? undefined);
  if (data.heldAlertedAt) return;
  await reportUnappliedCharge(
    scope,
    outcome,
    `its Medusa payment ${payment.id} was canceled without a refund, so the gateway still holds the money, and no order was placed`,
  );
  // The mark alone, in place: a whole copy of the data read before the alert would erase a notice stored
  // meanwhile by a locked writer (a portal refund, a chargeback), as this runs under no lock.
  await PaymentDataWrites.of(scope).markHeldAlerted(payment.id, new Date().toISOString());
}
