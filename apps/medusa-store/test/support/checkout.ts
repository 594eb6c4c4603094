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
