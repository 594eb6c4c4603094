import type { AuthenticatedMedusaRequest, MedusaRequest } from '@medusajs/framework/http';
import { chargeStateOf } from './open-charges';
import { type GatewaykitSessionData, readSessionData } from './session-data';

/**
 * Who may change or complete a cart whose gatewaykit session a logged-in customer created
 * (docs/SECURITY.md §2): only that customer. The completion sends the charge with the card the session
 * names, and Medusa's cart ids are bearer tokens with no ownership check: without this, whoever holds
 * the cart id could change the shipping address, and the customer's card would pay for goods sent to
 * them. A session created by a guest has no chooser: a guest's cart is the cart id's holder's by
 * Medusa's own rule.
 */
export interface ChosenSession {
  provider_id: string;
  data?: Record<string, unknown> | null;
}

/** Why `requesterId` (the logged-in customer, if any) may not change or complete a cart with `session`; undefined if they may. */
export function whyNotTheChooser(
  session: ChosenSession,
  requesterId: string | undefined,
): string | undefined {
  if (!session.provider_id.startsWith('pp_gatewaykit')) return undefined;
  const data: Partial<GatewaykitSessionData> = readSessionData(session.data ?? undefined);
  // Before the charge, while the shopper is on the gateway's page, and after a decline (the customer
  // retries on the same cart), the cart's address and contents decide what the customer's money buys.
  // Once the charge may have taken money, nobody may change the cart (refuseWhileChargeOpen) and a
  // completion charges nothing more.
  if (!data.medusaCustomerId || chargeStateOf(data) === 'open') return undefined;
  if (requesterId === data.medusaCustomerId) return undefined;
  return requesterId
    ? 'this cart is being paid with the payment another customer chose; only that customer can change or complete it'
    : 'this cart is being paid with the payment a logged-in customer chose; log in as that customer to change or complete it';
}

/** The logged-in customer Medusa names when a session is created (its workflow reads the route's actor). */
export function customerIdOf(context: { customer?: { id?: unknown } } | undefined): string | undefined {
  const id = context?.customer?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The logged-in customer a store request comes from, or undefined for a guest: set by Medusa's
 * `authenticate` (allowUnauthenticated) that runs before the guards.
 */
export function requesterOf(req: MedusaRequest): string | undefined {
  return (req as Partial<AuthenticatedMedusaRequest>).auth_context?.actor_id || undefined;
}
