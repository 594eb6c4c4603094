import { type ChargebackDetails, type ChargebackEvent, chargebackKey } from '@gatewaykit/core';

/**
 * Chargebacks as the plugin keeps them: a list in the charged Payment's metadata (admin only; the
 * dashboard block and the Admin API read it there) and a private order note
 * (docs/callbacks-and-returns.md#refund-and-chargeback-events).
 */
export type ChargebackEntry = ChargebackDetails;

function entryOf(event: ChargebackEvent): ChargebackEntry {
  const { kind: _kind, orderNo: _orderNo, ...entry } = event;
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
}

/**
 * The payment metadata with the chargeback added; `added` is false when it is already there (the same
 * notice again), and then the metadata is returned unchanged.
 */
export function withChargeback(
  metadata: Record<string, unknown> | null | undefined,
  event: ChargebackEvent,
): { metadata: Record<string, unknown>; added: boolean } {
  const current = metadata ?? {};
  const list = Array.isArray(current.chargebacks) ? (current.chargebacks as ChargebackEntry[]) : [];
  const entry = entryOf(event);
  if (list.some((known) => chargebackKey(known) === chargebackKey(entry)))
    return { metadata: current, added: false };
  return { metadata: { ...current, chargebacks: [...list, entry] }, added: true };
}

/**
 * The order note: what was disputed, why, and by when to answer. `unapplied`: the order has no payment
 * for this trade, because the gateway's success could not be applied to it (PAID BUT NOT APPLIED, whose
 * note asks for a refund in the merchant portal): the bank has now taken the money back, so a portal
 * refund as well would return it twice.
 */
export function chargebackNote(event: ChargebackEvent, options: { unapplied?: boolean } = {}): string {
  const amount = [event.amount ?? '?', event.currency ?? ''].join(' ').trim();
  return (
    `Chargeback ${event.batchNo ?? '(no batchNo)'} on gateway trade ${event.tradeNo ?? '?'}: ${amount}` +
    `, reason: ${event.reason ?? 'not given'}` +
    `, reply deadline: ${event.replyDeadline ?? 'not given'}` +
    (event.cpdDate ? ` (CPD ${event.cpdDate})` : '') +
    ". Answer it in the gateway's merchant portal." +
    (options.unapplied
      ? ' This payment was never applied to the order: the bank has taken the money back, so do not also refund it in the merchant portal.'
      : '')
  );
}
