import { api, expectOk, type Json } from './store-api';

let adminToken: string | undefined;

/** Admin token of the seeded admin user. */
export async function adminTokenFor(): Promise<string> {
  if (!adminToken) {
    const { token } = await expectOk(
      api('POST', '/auth/user/emailpass', {
        body: { email: 'admin@gatewaykit.test', password: 'supersecret' },
      }),
    );
    adminToken = token as string;
  }
  return adminToken;
}

export async function adminOrder(orderId: string): Promise<Record<string, Json>> {
  const token = await adminTokenFor();
  const { order } = await expectOk(
    api(
      'GET',
      `/admin/orders/${orderId}?fields=*payment_collections,*payment_collections.payments,*payment_collections.payment_sessions`,
      { token },
    ),
  );
  return order;
}
