import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';

/**
 * The cart a payment collection pays for, with the given cart fields (`id`, `customer_id`,
 * `billing_address.*`, …): a provider cannot read the cart, the routes and middlewares can.
 */
export async function cartOfPaymentCollection<Cart extends object>(
  scope: MedusaContainer,
  paymentCollectionId: string,
  cartFields: string[],
): Promise<Cart | undefined> {
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: 'payment_collection',
    fields: cartFields.map((field) => `cart.${field}`),
    filters: { id: paymentCollectionId },
  });
  return (data[0] as { cart?: Cart | null } | undefined)?.cart ?? undefined;
}
