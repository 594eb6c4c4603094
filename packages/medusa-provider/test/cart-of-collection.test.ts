import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import { cartIdOfCollection, collectionIdsOfCart, sessionsOfCart } from '../src/lib/cart-of-collection';
import { RETURNED_PAYMENT_RELATIONS } from '../src/lib/returned-payment';

/**
 * A container whose query answers every link row it is asked for, and whose payment module lists one
 * session per collection asked for; both record what they were asked.
 */
function scopeWithLinks(rows: { cart_id: string; payment_collection_id: string }[]) {
  const filters: unknown[] = [];
  const sessionReads: unknown[][] = [];
  const scope = {
    resolve(key: string) {
      if (key === Modules.PAYMENT)
        return {
          listPaymentSessions: async (filter: { payment_collection_id: string[] }, config: unknown) => {
            sessionReads.push([filter, config]);
            return filter.payment_collection_id.map((id) => ({ id: `ps_of_${id}` }));
          },
        };
      if (key !== ContainerRegistrationKeys.QUERY) throw new Error(`unexpected ${key}`);
      return {
        graph: async (input: { filters: { payment_collection_id?: string; cart_id?: string } }) => {
          filters.push(input.filters);
          const { payment_collection_id: collection, cart_id: cart } = input.filters;
          return {
            data: rows.filter(
              (row) =>
                (!collection || row.payment_collection_id === collection) && (!cart || row.cart_id === cart),
            ),
          };
        },
      };
    },
  } as unknown as MedusaContainer;
  return { scope, filters, sessionReads };
}

/** Two shoppers' carts, each linked to its own collection. */
const rows = [
  { cart_id: 'cart_other', payment_collection_id: 'pc_other' },
  { cart_id: 'cart_1', payment_collection_id: 'pc_1' },
];

describe('cartIdOfCollection', () => {
  it("reads the link of the collection named, and answers that collection's cart", async () => {
    const { scope, filters } = scopeWithLinks(rows);
    expect(await cartIdOfCollection(scope, 'pc_1')).toBe('cart_1');
    expect(filters).toEqual([{ payment_collection_id: 'pc_1' }]);
    expect(await cartIdOfCollection(scope, 'pc_none')).toBeUndefined();
  });

  it("an empty collection id reads nothing: an empty filter would answer some other shopper's cart", async () => {
    const { scope, filters } = scopeWithLinks(rows);
    expect(await cartIdOfCollection(scope, '')).toBeUndefined();
    expect(filters).toEqual([]);
  });
});

describe('collectionIdsOfCart', () => {
  it("reads the link of the cart named, and answers that cart's collections", async () => {
    const { scope, filters } = scopeWithLinks(rows);
    expect(await collectionIdsOfCart(scope, 'cart_1')).toEqual(['pc_1']);
    expect(filters).toEqual([{ cart_id: 'cart_1' }]);
    // A cart early in checkout has no payment collection yet.
    expect(await collectionIdsOfCart(scope, 'cart_none')).toEqual([]);
  });

  it('answers every linked collection: a guard must see an open charge on any of them', async () => {
    const { scope } = scopeWithLinks([...rows, { cart_id: 'cart_1', payment_collection_id: 'pc_2' }]);
    expect(await collectionIdsOfCart(scope, 'cart_1')).toEqual(['pc_1', 'pc_2']);
  });

  it("an empty cart id reads nothing: an empty filter would answer other shoppers' collections", async () => {
    const { scope, filters } = scopeWithLinks(rows);
    expect(await collectionIdsOfCart(scope, '')).toEqual([]);
    expect(filters).toEqual([]);
  });
});

describe('sessionsOfCart', () => {
  it("lists the sessions of every collection of the cart, with the guard's fields", async () => {
    const { scope, sessionReads } = scopeWithLinks([
      ...rows,
      { cart_id: 'cart_1', payment_collection_id: 'pc_2' },
    ]);
    const config = { select: ['id', 'payment.id'], relations: ['payment'] };
    expect(await sessionsOfCart(scope, 'cart_1', config)).toEqual([
      { id: 'ps_of_pc_1' },
      { id: 'ps_of_pc_2' },
    ]);
    expect(sessionReads).toEqual([[{ payment_collection_id: ['pc_1', 'pc_2'] }, config]]);
  });

  it('reads no sessions for a cart without a collection, nor for an empty cart id', async () => {
    const { scope, sessionReads } = scopeWithLinks(rows);
    expect(await sessionsOfCart(scope, 'cart_none', { select: ['id'] })).toEqual([]);
    expect(await sessionsOfCart(scope, '', { select: ['id'] })).toEqual([]);
    expect(sessionReads).toEqual([]);
  });
});

describe('RETURNED_PAYMENT_RELATIONS', () => {
  it('names every relation the returned-payment fields cross, once each', () => {
    expect(RETURNED_PAYMENT_RELATIONS).toEqual(['payment', 'payment.refunds']);
  });
});
