import { describe, expect, it } from 'vitest';
import { placedSince } from '../src/config/stale-order-line-save.subscriber';

/**
 * Which moves of an order make a line write from an earlier read stale: only being placed after the
 * request read it as the shopper's. The real store shows the refusals (apps/vendure-store
 * placed-order-races.test.ts).
 */
describe('placedSince (the order-line guard refuses only a write to an order placed since it was read)', () => {
  it('attack: read active (AddingItems, ArrangingPayment), committed placed: refused', () => {
    expect(placedSince({ state: 'AddingItems', active: true }, { active: false })).toBe(true);
    expect(placedSince({ state: 'ArrangingPayment', active: true }, { active: false })).toBe(true);
  });

  it('honest: other moves are the writer’s business (another device, a fulfilment, a placed order read as placed)', () => {
    // Another device sent the cart back to AddingItems while a login merged carts.
    expect(placedSince({ state: 'ArrangingPayment', active: true }, { active: true })).toBe(false);
    // A store job writing line fields on a placed order that was shipped meanwhile.
    expect(placedSince({ state: 'PaymentSettled', active: false }, { active: false })).toBe(false);
    // Draft and Modifying orders are not active: read so, they are written so.
    expect(placedSince({ state: 'Modifying', active: false }, { active: false })).toBe(false);
  });
});
