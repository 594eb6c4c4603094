import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import { cartIdOfCollection } from '../src/lib/cart-of-collection';

/** A container whose query answers every link row it is asked for, and records the filters. */
function scopeWithLinks(rows: { cart_id: string; payment_collection_id: string }[]) {
  const filters: unknown[] = [];
  const scope = {
    resolve(key: string) {
      if (key !== ContainerRegistrationKeys.QUERY) throw new Error(`unexpected ${key}`);
      return {
        graph: async (input: { filters: { payment_collection_id?: string } }) => {
          filters.push(input.filters);
          const wanted = input.filters.payment_collection_id;
          return { data: rows.filter((row) => !wanted || row.payment_collection_id === wanted) };
        },
      };
    },
  } as unknown as MedusaContainer;
  return { scope, filters };
}

describe('cartIdOfCollection', () => {
  const rows = [
    { cart_id: 'cart_other', payment_collection_id: 'pc_other' },
    { cart_id: 'cart_1', payment_collection_id: 'pc_1' },
  ];

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
