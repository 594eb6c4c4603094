import { adminTokenFor } from './admin';
import { api, expectOk, type Json } from './store-api';

/** All orders of one shopper email (each test uses its own email). */
export async function ordersOf(email: string): Promise<Record<string, Json>[]> {
  const token = await adminTokenFor();
  const { orders } = await expectOk(
    api(
      'GET',
      `/admin/orders?limit=500&fields=id,email,payment_status,*payment_collections,*payment_collections.payments`,
      { token },
    ),
  );
  return orders.filter((order: { email: string }) => order.email === email);
}

export async function cartCompleted(cartId: string, token?: string): Promise<boolean> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=completed_at`, { token }));
  return Boolean(cart.completed_at);
}
