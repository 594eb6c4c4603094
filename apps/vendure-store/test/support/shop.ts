import { type PageOutcome, submitSandboxPage, TEST_CARD_NUMBERS, testCardForm } from '@gatewaykit/sandbox';
import type { GraphqlClient } from '../../src/graphql-client';
import { uniqueEmail } from './email';

export interface PreparedOrder {
  id: string;
  code: string;
  totalWithTax: number;
  currencyCode: string;
}

const ORDER_FIELDS = 'id code state totalWithTax currencyCode';

/** Guest (or logged-in) checkout up to the point of payment: items, customer, address, shipping. */
export async function prepareOrder(
  shop: GraphqlClient,
  options: { loggedIn?: boolean; quantity?: number; variantId?: string; city?: string } = {},
) {
  const { products } = await shop.query<{ products: { items: { variants: { id: string }[] }[] } }>(
    `{ products(options: { take: 1, sort: { id: ASC } }) { items { variants { id } } } }`,
  );
  const variantId = options.variantId ?? products.items[0]?.variants[0]?.id;
  if (!variantId) throw new Error('no product');
  const added = await shop.query<{ addItemToOrder: { __typename: string; message?: string } }>(
    `mutation ($id: ID!, $q: Int!) { addItemToOrder(productVariantId: $id, quantity: $q) { __typename ... on ErrorResult { message } } }`,
    { id: variantId, q: options.quantity ?? 1 },
  );
  if (added.addItemToOrder.__typename !== 'Order')
    throw new Error(`addItemToOrder: ${added.addItemToOrder.message}`);
  if (!options.loggedIn) {
    await shop.query(
      `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) { __typename } }`,
      {
        input: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          emailAddress: uniqueEmail('ada'),
        },
      },
    );
  }
  await shop.query(
    `mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { __typename } }`,
    {
      input: {
        fullName: 'Ada Lovelace',
        streetLine1: '1 Analytical Way',
        city: options.city ?? 'London',
        postalCode: 'N1 1AA',
        countryCode: 'GB',
      },
    },
  );
  const { eligibleShippingMethods } = await shop.query<{ eligibleShippingMethods: { id: string }[] }>(
    `{ eligibleShippingMethods { id } }`,
  );
  const order = await shop.query<{ setOrderShippingMethod: PreparedOrder & { __typename: string } }>(
    `mutation ($ids: [ID!]!) { setOrderShippingMethod(shippingMethodId: $ids) { __typename ... on Order { ${ORDER_FIELDS} } } }`,
    { ids: [eligibleShippingMethods[0]?.id] },
  );
  return order.setOrderShippingMethod;
}

export type StartResult =
  | { __typename: 'GatewaykitPaymentRedirect'; url: string; orderNo: string }
  | {
      __typename: 'GatewaykitPaymentCompleted';
      order: {
        id: string;
        code: string;
        state: string;
        lines: { quantity: number; productVariant: { name: string } }[];
        payments: { state: string }[];
      };
    }
  | { __typename: 'GatewaykitPaymentPending'; orderNo: string; message: string }
  | { __typename: 'GatewaykitPaymentError'; errorCode: string; message: string };

export async function startPayment(
  shop: GraphqlClient,
  input: {
    paymentMethodCode: string;
    savedCardId?: string;
    card?: Record<string, string>;
    elementPaymentMethodId?: string;
    saveCard?: boolean;
  },
): Promise<StartResult> {
  const res = await shop.query<{ gatewaykitStartPayment: StartResult }>(
    `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) {
      __typename
      ... on GatewaykitPaymentRedirect { url orderNo }
      ... on GatewaykitPaymentCompleted {
        order { id code state lines { quantity productVariant { name } } payments { state } }
      }
      ... on GatewaykitPaymentPending { orderNo message }
      ... on GatewaykitPaymentError { errorCode message }
    } }`,
    { input },
  );
  return res.gatewaykitStartPayment;
}

export { TEST_CARD_NUMBERS as CARDS } from '@gatewaykit/sandbox';

export function cardInput(cardNo: string): Record<string, string> {
  return testCardForm(cardNo);
}

/**
 * Plays the shopper on a sandbox page (hosted checkout, 3DS challenge, local method): posts the form
 * and follows the redirect to our return URL. Returns where our server sent the shopper.
 */
export async function completeRedirect(
  redirectUrl: string,
  outcome: PageOutcome,
  cardNo: string = TEST_CARD_NUMBERS.success,
): Promise<{ returnStatus: number; storefrontLocation: string | null; returnUrl: string | null }> {
  const { status, location: returnUrl } = await submitSandboxPage(redirectUrl, outcome, cardNo);
  if (!returnUrl) return { returnStatus: status, storefrontLocation: null, returnUrl: null };
  const back = await fetch(returnUrl, { redirect: 'manual' });
  await back.text();
  return { returnStatus: back.status, storefrontLocation: back.headers.get('location'), returnUrl };
}

export interface AdminOrder {
  id: string;
  code: string;
  state: string;
  totalWithTax: number;
  currencyCode: string;
  payments: {
    id: string;
    state: string;
    amount: number;
    transactionId: string | null;
    method: string;
    metadata: Record<string, unknown>;
  }[];
  history: { items: { type: string; data: Record<string, unknown> }[] };
}

export async function adminOrder(admin: GraphqlClient, id: string): Promise<AdminOrder> {
  const { order } = await admin.query<{ order: AdminOrder }>(
    `query ($id: ID!) { order(id: $id) { id code state totalWithTax currencyCode
       payments { id state amount transactionId method metadata }
       history(options: { take: 100 }) { items { type data } } } }`,
    { id },
  );
  return order;
}

/** The order's private notes (its latest 100 history entries), those containing `text` when given. */
export async function orderNotes(admin: GraphqlClient, id: string, text = ''): Promise<string[]> {
  return (await adminOrder(admin, id)).history.items
    .filter((entry) => entry.type === 'ORDER_NOTE')
    .map((entry) => String(entry.data.note))
    .filter((note) => note.includes(text));
}

/**
 * Polls until `check` holds (server-side effects of callbacks are asynchronous); fails the test when it
 * does not hold within `timeoutMs`, naming the last value read.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) {
      throw new Error(
        `condition not met within ${timeoutMs} ms; last read: ${JSON.stringify(value)?.slice(0, 800)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

/** Registers and logs in a customer on this shop client (verification is off in the demo store). */
export async function registerAndLogin(shop: GraphqlClient, email: string): Promise<void> {
  await shop.query(
    `mutation ($input: RegisterCustomerInput!) { registerCustomerAccount(input: $input) { __typename } }`,
    { input: { emailAddress: email, firstName: 'Grace', lastName: 'Hopper', password: 'test-password' } },
  );
  const res = await shop.query<{ login: { __typename: string } }>(
    `mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { __typename } }`,
    { u: email, p: 'test-password' },
  );
  if (res.login.__typename !== 'CurrentUser') throw new Error(`login failed: ${res.login.__typename}`);
}

/** Enables or disables the channel's payment method `code` through the Admin API. */
export async function setPaymentMethodEnabled(
  admin: GraphqlClient,
  code: string,
  enabled: boolean,
): Promise<void> {
  const { paymentMethods } = await admin.query<{
    paymentMethods: { items: { id: string; code: string }[] };
  }>(`{ paymentMethods(options: { take: 50 }) { items { id code } } }`);
  const method = paymentMethods.items.find((m) => m.code === code);
  if (!method) throw new Error(`no payment method ${code}`);
  await admin.query(
    `mutation ($input: UpdatePaymentMethodInput!) { updatePaymentMethod(input: $input) { __typename } }`,
    { input: { id: method.id, enabled } },
  );
}
