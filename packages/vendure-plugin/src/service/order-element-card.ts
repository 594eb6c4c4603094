import type { ElementCardCheckout, RetiredCards } from '@gatewaykit/core';
import type { Repository } from 'typeorm';
import { GatewaykitElementCardBinding } from '../entity/element-card-binding.entity';

/**
 * Core's element-card binding (docs/card-element.md#one-checkout-per-element-card) for one order: a
 * fresh card-element method is bound to the order that first names it. Two first uses at once, on any
 * instances: the primary key lets one insert win (ON CONFLICT DO NOTHING on PostgreSQL, INSERT OR
 * IGNORE on sql.js), and both read the winner afterwards, in a second statement that sees the commit
 * the losing insert waited for. The same order naming the card again (a retry after a decline) is its
 * own binding, so it stays allowed.
 */
export class OrderElementCardCheckout implements ElementCardCheckout {
  constructor(
    private readonly bindings: Repository<GatewaykitElementCardBinding>,
    private readonly orderId: string,
  ) {}

  async bindElementCard(customerPaymentMethodId: string): Promise<boolean> {
    await this.bindings
      .createQueryBuilder()
      .insert()
      .into(GatewaykitElementCardBinding)
      .values({ customerPaymentMethodId, orderId: this.orderId })
      .orIgnore()
      .execute();
    const winner = await this.bindings.findOneBy({ customerPaymentMethodId });
    return winner?.orderId === this.orderId;
  }
}

/** What a removed saved card is bound to: no order has this id. */
const RETIRED = 'removed';

/**
 * Core's retirement of removed saved cards (removeSavedCard) in the bindings table: the card's row names
 * no order, whatever it named before, so no checkout can bind it again.
 */
export function retiredCardsIn(bindings: Repository<GatewaykitElementCardBinding>): RetiredCards {
  return {
    async retireUnbound(customerPaymentMethodIds) {
      if (customerPaymentMethodIds.length === 0) return;
      await bindings
        .createQueryBuilder()
        .insert()
        .into(GatewaykitElementCardBinding)
        .values(
          customerPaymentMethodIds.map((customerPaymentMethodId) => ({
            customerPaymentMethodId,
            orderId: RETIRED,
          })),
        )
        .orIgnore()
        .execute();
    },
    async retire(customerPaymentMethodId) {
      await bindings
        .createQueryBuilder()
        .insert()
        .into(GatewaykitElementCardBinding)
        .values({ customerPaymentMethodId, orderId: RETIRED })
        .orUpdate(['orderId'], ['customerPaymentMethodId'])
        .execute();
    },
  };
}
