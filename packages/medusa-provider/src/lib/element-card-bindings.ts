import type { ElementCardCheckout } from '@gatewaykit/core';
import type { SqlDatabase } from './charge-claim';

/**
 * Core's element-card binding (docs/card-element.md#one-checkout-per-element-card) for the payment
 * collection of one payment session, in the store's database: a fresh card-element method is bound to
 * the collection that first names it, in a table the card provider's migration creates. Two first uses
 * at once, on any instances: the primary key lets one insert win, and both read the winner afterwards
 * (a second statement, so it sees the commit the insert waited for).
 */
export class SessionElementCardCheckout implements ElementCardCheckout {
  constructor(
    private readonly db: SqlDatabase,
    private readonly sessionId: string,
  ) {}

  async bindElementCard(customerPaymentMethodId: string): Promise<boolean> {
    await this.db.raw(
      `INSERT INTO gatewaykit_element_card_binding (id, payment_collection_id)
       SELECT ?, payment_collection_id FROM payment_session WHERE id = ?
       ON CONFLICT (id) DO NOTHING`,
      [customerPaymentMethodId, this.sessionId],
    );
    const { rows } = await this.db.raw(
      `SELECT b.payment_collection_id = s.payment_collection_id AS ours
         FROM gatewaykit_element_card_binding b, payment_session s
        WHERE b.id = ? AND s.id = ?`,
      [customerPaymentMethodId, this.sessionId],
    );
    // No row: the session does not exist, so nothing is bound to it.
    return rows[0]?.ours === true;
  }
}
