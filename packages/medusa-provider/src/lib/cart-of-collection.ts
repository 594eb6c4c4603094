import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';

/**
 * The cart a payment collection pays for. A provider cannot read the cart; the routes, middlewares and
 * the callback's store can. Collections of orders (not carts) have none.
 *
 * The hot paths (every callback, every payment-session request) need only the cart's id and whether it
 * is an order yet: they read the cart–collection link and then the cart module, one plain read each.
 * A `query.graph` across the link costs three fetches and, in Medusa 2.21, a deep copy of each module's
 * joiner config per fetch: about 4 ms of CPU against about 2 (docs/performance.md, "Medusa duplicate
 * callbacks").
 */

/** The link table's entry point, as Medusa's link-modules define it for cart ↔ payment collection. */
const CART_PAYMENT_COLLECTION_LINK = 'cart_payment_collection';

/** The id of the cart that payment collection `paymentCollectionId` pays for; undefined when none. */
export async function cartIdOfCollection(
  scope: MedusaContainer,
  paymentCollectionId: string,
): Promise<string | undefined> {
  // An empty filter would match every link row: some other shopper's cart.
  if (!paymentCollectionId) return undefined;
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: CART_PAYMENT_COLLECTION_LINK,
    fields: ['cart_id'],
    filters: { payment_collection_id: paymentCollectionId },
  });
  return (data[0] as { cart_id?: string } | undefined)?.cart_id ?? undefined;
}

/**
 * The ids of the payment collections of cart `cartId`: none while it has none (early in checkout), one
 * as Medusa links them. Every linked one is answered: the link table does not itself forbid a second
 * row, and a guard that read only one could miss an open charge on the other.
 */
export async function collectionIdsOfCart(scope: MedusaContainer, cartId: string): Promise<string[]> {
  // An empty filter would match every link row: other shoppers' collections.
  if (typeof cartId !== 'string' || !cartId) return [];
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: CART_PAYMENT_COLLECTION_LINK,
    fields: ['payment_collection_id'],
    filters: { cart_id: cartId },
  });
  return (data as { payment_collection_id?: string | null }[])
    .map((row) => row.payment_collection_id)
    .filter((id): id is string => typeof id === 'string' && id !== '');
}

/**
 * The payment sessions of every collection of cart `cartId` (none before it has one), read from the
 * payment module with `config`'s fields: what the store guards judge.
 */
export async function sessionsOfCart<Session>(
  scope: MedusaContainer,
  cartId: string,
  config: { select: string[]; relations?: string[] },
): Promise<Session[]> {
  const collectionIds = await collectionIdsOfCart(scope, cartId);
  if (collectionIds.length === 0) return [];
  return (await scope
    .resolve(Modules.PAYMENT)
    .listPaymentSessions({ payment_collection_id: collectionIds }, config)) as Session[];
}

/** Whether cart `cartId` is an order (Medusa sets `completed_at` when it completes the cart). */
export async function isCartCompleted(scope: MedusaContainer, cartId: string): Promise<boolean> {
  const [cart] = await scope
    .resolve(Modules.CART)
    .listCarts({ id: cartId }, { select: ['id', 'completed_at'] });
  return Boolean(cart?.completed_at);
}

/**
 * The cart a payment collection pays for, with the given fields and relations (`email`,
 * `billing_address.*`, `items.*`, …); undefined when there is none.
 */
export async function cartOfPaymentCollection<Cart extends object>(
  scope: MedusaContainer,
  paymentCollectionId: string,
  cartFields: string[],
): Promise<Cart | undefined> {
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: 'payment_collection',
    fields: ['id', ...cartFields.map((field) => `cart.${field}`)],
    filters: { id: paymentCollectionId },
  });
  return (data[0] as { cart?: Cart | null } | undefined)?.cart ?? undefined;
}
