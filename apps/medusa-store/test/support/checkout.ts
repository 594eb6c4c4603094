import { expect } from 'vitest';
import { sql } from './database';
import { api, expectOk, type Json } from './store-api';

export const HOSTED = 'pp_gatewaykit-hosted_gatewaykit';
export const CARD = 'pp_gatewaykit_gatewaykit';
export const LOCAL = 'pp_gatewaykit-local_gatewaykit';

/** The address readyCart gives a cart (shipping and billing). */
export const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  address_1: '1 Test Street',
  city: 'Austin',
  country_code: 'us',
  province: 'us-tx',
  postal_code: '73301',
  phone: '5125550100',
};

/** A cart ready for payment: one item, addresses, shipping method, payment collection. */
export async function readyCart(
  options: { token?: string; email?: string; province?: string } = {},
): Promise<{ cartId: string; collectionId: string; total: number }> {
  const { token } = options;
  // A province of its own lets a test tax it without changing other tests' carts.
  const address = options.province ? { ...ADDRESS, province: options.province } : ADDRESS;
  const { regions } = await expectOk(api('GET', '/store/regions', { token }));
  const region = regions.find((r: { name: string }) => r.name === 'Gatewaykit Demo');
  const { products } = await expectOk(
    api('GET', `/store/products?region_id=${region.id}&fields=*variants`, { token }),
  );
  const variantId = products[0].variants[0].id;
  const { cart } = await expectOk(
    api('POST', '/store/carts', {
      token,
      body: {
        region_id: region.id,
        email: options.email ?? 'guest@example.com',
        shipping_address: address,
        billing_address: address,
      },
    }),
  );
  await expectOk(
    api('POST', `/store/carts/${cart.id}/line-items`, {
      token,
      body: { variant_id: variantId, quantity: 2 },
    }),
  );
  const { shipping_options } = await expectOk(
    api('GET', `/store/shipping-options?cart_id=${cart.id}`, { token }),
  );
  await expectOk(
    api('POST', `/store/carts/${cart.id}/shipping-methods`, {
      token,
      body: { option_id: shipping_options[0].id },
    }),
  );
  const { payment_collection } = await expectOk(
    api('POST', '/store/payment-collections', { token, body: { cart_id: cart.id } }),
  );
  const { cart: priced } = await expectOk(api('GET', `/store/carts/${cart.id}`, { token }));
  return { cartId: cart.id, collectionId: payment_collection.id, total: priced.total };
}

/** Creates (or replaces) the cart's payment session; returns the new session. */
export async function startSession(
  collectionId: string,
  providerId: string,
  data: Record<string, unknown> = {},
  token?: string,
): Promise<{ id: string; status: string; data: Record<string, Json> }> {
  const { payment_collection } = await expectOk(
    api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
      token,
      body: { provider_id: providerId, data },
    }),
  );
  return payment_collection.payment_sessions[0];
}

export async function currentSession(
  cartId: string,
  token?: string,
): Promise<{ id: string; status: string; data: Record<string, Json> }> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}`, { token }));
  return cart.payment_collection.payment_sessions[0];
}

export function complete(cartId: string, token?: string) {
  return api('POST', `/store/carts/${cartId}/complete`, { token });
}

/** The table holding a kept notice: the session's data (no Medusa payment took it) or its payment's. */
type KeptOn = 'payment_session' | 'payment';

/**
 * The completion guard judges before Medusa's cart lock; a completion that passed it just before money
 * went back at the gateway is judged under the lock by the session's status alone. Shown by blinding the
 * guard: `key` (what the notice kept) taken off the session's and its payment's data, then completing:
 * the session is retired (`canceled`) and Medusa refuses. The data is put back.
 */
export async function expectRefusedUnderCartLock(cartId: string, sessionId: string, key: string) {
  const [session] = await sql<{ status: string }>('select status from payment_session where id = $1', [
    sessionId,
  ]);
  expect(session?.status).toBe('canceled');
  const kept = await sql<{ id: string; data: Json; kept_on: KeptOn }>(
    `select id, data, 'payment_session' as kept_on from payment_session where id = $1 and data ? $2
     union all select id, data, 'payment' from payment where payment_session_id = $1 and data ? $2`,
    [sessionId, key],
  );
  expect(kept.length).toBeGreaterThan(0);
  const write = (row: { id: string; kept_on: KeptOn }, data: string, values: unknown[]) =>
    sql(`update ${row.kept_on} set data = ${data} where id = $1`, [row.id, ...values]);
  for (const row of kept) await write(row, 'data - $2', [key]);
  try {
    const queued = await complete(cartId);
    expect(queued.status).toBe(400);
    expect(queued.body.message).toMatch(/Payment sessions are required to complete cart/);
  } finally {
    for (const row of kept) await write(row, '$2', [row.data]);
  }
}
