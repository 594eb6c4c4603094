import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import { cartIdOfCollection, collectionIdsOfCart } from '../src/lib/cart-of-collection';

/** A container whose query answers every link row it is asked for, and records the filters. */
function scopeWithLinks(rows: { cart_id: string; payment_collection_id: string }[]) {
  const filters: unknown[] = [];
  const scope = {
    resolve(key: string) {
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
  return { scope, filters };
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
