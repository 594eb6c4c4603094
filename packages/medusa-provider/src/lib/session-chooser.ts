import { chargeStateOf } from './open-charges';
import { type GatewaykitSessionData, readSessionData } from './session-data';

/**
 * Who may complete a cart whose gatewaykit session a logged-in customer created (docs/SECURITY.md §2):
 * only that customer. The completion sends the charge with the card the session names, and Medusa's
 * cart ids are bearer tokens with no ownership check: without this, whoever holds the cart id could
 * change the shipping address and complete it, paying with the customer's saved card. A session created
 * by a guest has no chooser: a guest's cart is the cart id's holder's by Medusa's own rule.
 */
export interface ChosenSession {
  provider_id: string;
  data?: Record<string, unknown> | null;
}

/** Why `requesterId` (the logged-in customer, if any) may not complete with `session`; undefined if they may. */
export function whyNotTheChooser(
  session: ChosenSession,
  requesterId: string | undefined,
): string | undefined {
  if (!session.provider_id.startsWith('pp_gatewaykit')) return undefined;
  const data: Partial<GatewaykitSessionData> = readSessionData(session.data ?? undefined);
  // Once sent, a completion charges nothing more; cart changes are refused while the charge is open.
  if (!data.medusaCustomerId || chargeStateOf(data) !== 'not-sent') return undefined;
  if (requesterId === data.medusaCustomerId) return undefined;
  return requesterId
    ? 'this cart is being paid with the payment another customer chose; only that customer can complete it'
    : 'this cart is being paid with the payment a logged-in customer chose; log in as that customer to complete it';
}

/** The logged-in customer Medusa names when a session is created (its workflow reads the route's actor). */
export function customerIdOf(context: { customer?: { id?: unknown } } | undefined): string | undefined {
  const id = context?.customer?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
