import { inject } from 'vitest';
import { GraphqlClient, loginAdmin } from '../../../vendure-store/src/graphql-client';

// biome-ignore lint/suspicious/noExplicitAny: admin API JSON, read field by field.
type Json = Record<string, any>;

export interface AdminView {
  reference: string;
  email: string;
  paid: boolean;
  /** Provider / payment method code of the successful payment. */
  method: string;
  payments: { state: string; method: string }[];
}

let medusaToken: string | undefined;

async function medusaAdmin<T>(path: string): Promise<T> {
  const base = inject('medusaUrl');
  if (!medusaToken) {
    const response = await fetch(`${base}/auth/user/emailpass`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@gatewaykit.test', password: 'supersecret' }),
    });
    medusaToken = ((await response.json()) as { token: string }).token;
  }
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${medusaToken}` } });
  if (!response.ok) throw new Error(`Medusa admin ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The order as the Medusa admin API sees it, by the `#display_id` the storefront showed. */
export async function medusaOrder(reference: string): Promise<AdminView> {
  const displayId = Number(reference.replace('#', ''));
  const { orders } = await medusaAdmin<{ orders: Json[] }>(
    '/admin/orders?limit=200&order=-created_at&fields=id,display_id,email,payment_status,*payment_collections,*payment_collections.payments',
  );
  const order = orders.find((candidate) => candidate.display_id === displayId);
  if (!order) throw new Error(`Medusa has no order ${reference}`);
  const payments = (order.payment_collections as Json[]).flatMap((collection) =>
    (collection.payments as Json[]).map((payment) => ({
      state: payment.captured_at || payment.data?.outcome?.status === 'succeeded' ? 'captured' : 'other',
      method: payment.provider_id as string,
    })),
  );
  return {
    reference,
    email: order.email,
    paid: order.payment_status === 'captured',
    method: payments.find((payment) => payment.state === 'captured')?.method ?? '',
    payments,
  };
}

let vendureAdmin: GraphqlClient | undefined;

/** The order as the Vendure admin API sees it, by its code. */
export async function vendureOrder(code: string): Promise<AdminView> {
  vendureAdmin ??= await loginAdmin(`${inject('vendureUrl')}/admin-api`);
  const { orders } = await vendureAdmin.query<{ orders: { items: Json[] } }>(
    `query ($code: String!) { orders(options: { filter: { code: { eq: $code } } }) { items {
       code state customer { emailAddress } payments { state method } } } }`,
    { code },
  );
  const order = orders.items[0];
  if (!order) throw new Error(`Vendure has no order ${code}`);
  const payments = order.payments as { state: string; method: string }[];
  return {
    reference: code,
    email: order.customer?.emailAddress ?? '',
    paid: order.state === 'PaymentSettled',
    method: payments.find((payment) => payment.state === 'Settled')?.method ?? '',
    payments,
  };
}

export function adminOrder(store: 'medusa' | 'vendure', reference: string): Promise<AdminView> {
  return store === 'medusa' ? medusaOrder(reference) : vendureOrder(reference);
}
