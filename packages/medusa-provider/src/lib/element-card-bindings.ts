import { createHash } from 'node:crypto';
import type { ElementCardCheckout, RetiredCards } from '@gatewaykit/core';
import type { SqlDatabase } from './charge-claim';
import type { GatewaykitSessionData } from './session-data';

/**
 * Who names a fresh element card, as its binding keeps them: the logged-in Medusa customer, or for a
 * guest, where the goods go (the cart's email and shipping address as the session copied them, hashed).
 * A guest has no identity of their own, and Medusa's cart id is a bearer token: whoever holds it could
 * otherwise, still a guest, give the cart their own address and name the guest's card in a new session.
 * The guest who names their card again (a session replaced) with the same email and address still may.
 */
export function elementCardShopper(data: Pick<GatewaykitSessionData, 'medusaCustomerId' | 'buyer'>): string {
  if (data.medusaCustomerId) return data.medusaCustomerId;
  // Keys sorted: the stored copy comes back from a jsonb column, which orders keys its own way.
  const address = Object.entries(data.buyer?.shippingAddress ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const destination = JSON.stringify([data.buyer?.email ?? '', address]);
  return `guest:${createHash('sha256').update(destination).digest('hex').slice(0, 32)}`;
}

/**
 * Core's element-card binding (docs/card-element.md#one-checkout-per-element-card) for one payment
 * session, in the store's database: a fresh card-element method is bound to the payment collection
 * that first names it and to the shopper who named it (elementCardShopper), in a table the card
 * provider's migrations create. The shopper counts because a collection is not one person's: whoever
 * holds a guest's cart id may name the guest's card on the same collection, logged in to save it, or
 * as a guest with their own address. Two first uses at once, on any instances: the primary key lets
 * one insert win, and both read the winner afterwards (a second statement, so it sees the commit the
 * insert waited for).
 */
export class SessionElementCardCheckout implements ElementCardCheckout {
  constructor(
    private readonly db: SqlDatabase,
    private readonly sessionId: string,
    /** elementCardShopper of the session. */
    private readonly shopper: string,
  ) {}

  async bindElementCard(customerPaymentMethodId: string): Promise<boolean> {
    await this.db.raw(
      `INSERT INTO gatewaykit_element_card_binding (id, payment_collection_id, customer_id)
       SELECT ?, payment_collection_id, ? FROM payment_session WHERE id = ?
       ON CONFLICT (id) DO NOTHING`,
      [customerPaymentMethodId, this.shopper, this.sessionId],
    );
    const { rows } = await this.db.raw(
      `SELECT b.payment_collection_id = s.payment_collection_id AND b.customer_id = ? AS ours
         FROM gatewaykit_element_card_binding b, payment_session s
        WHERE b.id = ? AND s.id = ?`,
      [this.shopper, customerPaymentMethodId, this.sessionId],
    );
    // No row: the session does not exist, so nothing is bound to it.
    return rows[0]?.ours === true;
  }
}

/** What a removed saved card is bound to: no payment collection is called this. */
const RETIRED = 'removed';

/**
 * Core's retirement of removed saved cards (removeSavedCard) in the bindings table: the card's row names
 * no payment collection, whatever it named before, so no checkout can bind it again.
 */
export function retiredCardsIn(db: SqlDatabase): RetiredCards {
  return {
    async retireUnbound(customerPaymentMethodIds) {
      if (customerPaymentMethodIds.length === 0) return;
      await db.raw(
        `INSERT INTO gatewaykit_element_card_binding (id, payment_collection_id, customer_id)
         VALUES ${customerPaymentMethodIds.map(() => "(?, ?, '')").join(', ')}
         ON CONFLICT (id) DO NOTHING`,
        customerPaymentMethodIds.flatMap((id) => [id, RETIRED]),
      );
    },
    async retire(customerPaymentMethodId) {
      await db.raw(
        `INSERT INTO gatewaykit_element_card_binding (id, payment_collection_id, customer_id)
         VALUES (?, ?, '')
         ON CONFLICT (id) DO UPDATE SET payment_collection_id = EXCLUDED.payment_collection_id, customer_id = ''`,
        [customerPaymentMethodId, RETIRED],
      );
    },
  };
}
