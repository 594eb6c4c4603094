import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';

/**
 * A payment collection with the given fields of the cart it pays for (`id`, `customer_id`,
 * `billing_address.*`, …), or undefined when there is no such collection. A provider cannot read the
 * cart; the routes and middlewares can. Collections of orders (not carts) have no `cart`.
 */
export async function paymentCollectionWithCart<Cart extends object>(
  scope: MedusaContainer,
  paymentCollectionId: string,
  cartFields: string[],
): Promise<{ id: string; cart?: Cart | null } | undefined> {
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: 'payment_collection',
    fields: ['id', ...cartFields.map((field) => `cart.${field}`)],
    filters: { id: paymentCollectionId },
  });
  return data[0] as { id: string; cart?: Cart | null } | undefined;
}

/** The cart a payment collection pays for, with the given fields; undefined when there is none. */
export async function cartOfPaymentCollection<Cart extends object>(
  scope: MedusaContainer,
  paymentCollectionId: string,
  cartFields: string[],
): Promise<Cart | undefined> {
  return (await paymentCollectionWithCart<Cart>(scope, paymentCollectionId, cartFields))?.cart ?? undefined;
}
