import { randomUUID } from 'node:crypto';

/** What the plugin itself decided about a gateway payment; the handler only turns it into a Payment. */
export interface VerifiedPayment {
  state: 'Settled' | 'Declined';
  amount: number;
  tradeNo?: string;
  errorMessage?: string;
  /** Server-side metadata (admin API only). */
  metadata: Record<string, unknown>;
  /** Shown to the shopper through the Shop API: never anything secret. */
  publicMetadata: Record<string, unknown>;
}

const TICKET_KEY = 'gatewaykitTicket';
const tickets = new Map<string, VerifiedPayment>();

/**
 * Redirect-mode payments may only be created by the plugin after it has verified the gateway's
 * answer. The plugin passes a one-time, in-process ticket in the metadata; metadata a shopper sends
 * to `addPaymentToOrder` can never hold a valid ticket.
 */
export function issueTicket(payment: VerifiedPayment): Record<string, string> {
  const id = randomUUID();
  tickets.set(id, payment);
  return { [TICKET_KEY]: id };
}

export function redeemTicket(metadata: Record<string, unknown> | undefined): VerifiedPayment | undefined {
  const id = metadata?.[TICKET_KEY];
  if (typeof id !== 'string') return undefined;
  const payment = tickets.get(id);
  tickets.delete(id);
  return payment;
}

/** Drops a ticket that was never redeemed (e.g. Vendure refused the payment before the handler ran). */
export function discardTicket(ticket: Record<string, string>): void {
  const id = ticket[TICKET_KEY];
  if (id) tickets.delete(id);
}
