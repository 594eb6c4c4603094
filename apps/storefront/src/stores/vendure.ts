import type { StorefrontConfig } from '../config';
import { StoreError } from './http';
import {
  type Address,
  type CardChoice,
  type CardElementSession,
  type CardInput,
  type Cart,
  type Customer,
  FieldError,
  type Money,
  type PaymentOption,
  type PayResult,
  type PlacedOrder,
  type Product,
  type ReturnState,
  type SavedCard,
  type ShippingOption,
  type StoreAdapter,
} from './types';

const TOKEN_KEY = 'gatewaykit.vendure.token';
const PAID_STATES = ['PaymentSettled', 'PaymentAuthorized', 'Shipped', 'PartiallyShipped', 'Delivered'];

// biome-ignore lint/suspicious/noExplicitAny: untyped store JSON, read field by field into typed objects.
type Json = Record<string, any>;

const ORDER_FIELDS = `id code state totalQuantity subTotalWithTax shippingWithTax totalWithTax currencyCode
  customer { emailAddress }
  shippingAddress { fullName streetLine1 city postalCode countryCode province phoneNumber }
  shippingLines { shippingMethod { id } }
  lines { id quantity linePriceWithTax productVariant { name } }`;

/** Vendure 3 Shop API (GraphQL) with bearer-token sessions; amounts are in minor units (1200 = 12.00). */
export class VendureStore implements StoreAdapter {
  readonly id = 'vendure' as const;
  readonly name = 'Vendure';
  readonly rawCards: StoreAdapter['rawCards'];
  /**
   * The request in flight that was sent without a session token. A tokenless request that needs a
   * session gets a new anonymous one from Vendure, with its token: two at once could make two
   * sessions, and whichever answer came last would replace the token of the one holding the cart.
   * Tokenless requests therefore go one at a time, and each later one is sent with the token the
   * earlier one brought.
   */
  private tokenless: Promise<unknown> | undefined;

  constructor(private readonly config: StorefrontConfig['vendure']) {
    this.rawCards = config.rawCards ? 'anyone' : 'no';
  }

  private async gql<T = Json>(query: string, variables: Json = {}): Promise<T> {
    while (!localStorage.getItem(TOKEN_KEY) && this.tokenless) await this.tokenless.catch(() => undefined);
    const token = localStorage.getItem(TOKEN_KEY);
    const sent = fetch(`${this.config.apiBase}/shop-api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    if (!token) {
      const settled = sent.finally(() => {
        if (this.tokenless === settled) this.tokenless = undefined;
      });
      this.tokenless = settled;
    }
    const response = await sent;
    const issued = response.headers.get('vendure-auth-token');
    if (issued) localStorage.setItem(TOKEN_KEY, issued);
    const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
    if (body.errors?.length)
      throw new StoreError(body.errors.map((e) => e.message).join('; '), response.status);
    if (!body.data) throw new StoreError(`The store answered ${response.status}`, response.status);
    return body.data;
  }

  /** Unwraps a Vendure result union: an ErrorResult becomes an exception with its message. */
  private unwrap(result: Json, field?: string): Json {
    if (result.errorCode) {
      if (field) throw new FieldError(field, result.message);
      throw new StoreError(result.message, 400);
    }
    return result;
  }

  async listProducts(): Promise<Product[]> {
    const { products } = await this.gql<{ products: { items: Json[] } }>(
      `{ products(options: { take: 50, sort: { id: ASC } }) { items { id name description
          variants { id name priceWithTax currencyCode } } } }`,
    );
    return products.items.map((product) => ({
      id: product.id,
      title: product.name,
      description: product.description ?? '',
      variants: (product.variants as Json[]).map((variant) => ({
        id: variant.id,
        title: variant.name,
        price: money(variant.priceWithTax, variant.currencyCode),
      })),
    }));
  }

  private toCart(order: Json): Cart {
    const address = order.shippingAddress as Json | null;
    const [firstName = '', ...rest] = String(address?.fullName ?? '').split(' ');
    return {
      id: order.id,
      lines: (order.lines as Json[]).map((line) => ({
        id: line.id,
        title: line.productVariant?.name ?? 'Item',
        quantity: line.quantity,
        total: money(line.linePriceWithTax, order.currencyCode),
      })),
      itemCount: order.totalQuantity,
      subtotal: money(order.subTotalWithTax, order.currencyCode),
      shipping: money(order.shippingWithTax, order.currencyCode),
      total: money(order.totalWithTax, order.currencyCode),
      email: order.customer?.emailAddress ?? undefined,
      address: address?.streetLine1
        ? {
            firstName,
            lastName: rest.join(' '),
            line1: address.streetLine1,
            city: address.city ?? '',
            postalCode: address.postalCode ?? '',
            countryCode: address.countryCode ?? '',
            province: address.province ?? '',
            phone: address.phoneNumber ?? '',
          }
        : undefined,
      shippingOptionId: order.shippingLines?.[0]?.shippingMethod?.id,
    };
  }

  private async activeOrder(): Promise<Json | undefined> {
    const { activeOrder } = await this.gql<{ activeOrder: Json | null }>(
      `{ activeOrder { ${ORDER_FIELDS} } }`,
    );
    return activeOrder ?? undefined;
  }

  async getCart(): Promise<Cart | undefined> {
    const order = await this.activeOrder();
    return order && order.lines.length > 0 ? this.toCart(order) : undefined;
  }

  /** A failed payment leaves the order in ArrangingPayment; changing it needs AddingItems again. */
  private async editable(): Promise<void> {
    const order = await this.activeOrder();
    if (order?.state === 'ArrangingPayment') {
      await this.gql(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    }
  }

  async addToCart(variantId: string, quantity: number): Promise<Cart> {
    await this.editable();
    const { addItemToOrder } = await this.gql<{ addItemToOrder: Json }>(
      `mutation ($id: ID!, $q: Int!) { addItemToOrder(productVariantId: $id, quantity: $q) {
         ... on Order { ${ORDER_FIELDS} } ... on ErrorResult { errorCode message } } }`,
      { id: variantId, q: quantity },
    );
    return this.toCart(this.unwrap(addItemToOrder));
  }

  async removeLine(lineId: string): Promise<Cart | undefined> {
    await this.editable();
    const { removeOrderLine } = await this.gql<{ removeOrderLine: Json }>(
      `mutation ($id: ID!) { removeOrderLine(orderLineId: $id) {
         ... on Order { ${ORDER_FIELDS} } ... on ErrorResult { errorCode message } } }`,
      { id: lineId },
    );
    const order = this.unwrap(removeOrderLine);
    return order.lines.length > 0 ? this.toCart(order) : undefined;
  }

  async setDetails(email: string, address: Address): Promise<Cart> {
    await this.editable();
    if (!(await this.currentCustomer())) {
      const { setCustomerForOrder } = await this.gql<{ setCustomerForOrder: Json }>(
        `mutation ($input: CreateCustomerInput!) { setCustomerForOrder(input: $input) {
           __typename ... on ErrorResult { errorCode message } } }`,
        { input: { emailAddress: email, firstName: address.firstName, lastName: address.lastName } },
      );
      this.unwrap(setCustomerForOrder, 'email');
    }
    const { setOrderShippingAddress } = await this.gql<{ setOrderShippingAddress: Json }>(
      `mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) {
         ... on Order { ${ORDER_FIELDS} } ... on ErrorResult { errorCode message } } }`,
      {
        input: {
          fullName: `${address.firstName} ${address.lastName}`.trim(),
          streetLine1: address.line1,
          city: address.city,
          postalCode: address.postalCode,
          countryCode: address.countryCode.toUpperCase(),
          province: address.province,
          phoneNumber: address.phone,
        },
      },
    ).catch((error: unknown) => {
      if (error instanceof StoreError && /country/i.test(error.message))
        throw new FieldError('countryCode', 'This store does not ship to that country');
      throw error;
    });
    return this.toCart(this.unwrap(setOrderShippingAddress));
  }

  async shippingOptions(): Promise<ShippingOption[]> {
    const { eligibleShippingMethods } = await this.gql<{ eligibleShippingMethods: Json[] }>(
      `{ eligibleShippingMethods { id name priceWithTax } }`,
    );
    const currency = (await this.activeOrder())?.currencyCode ?? 'USD';
    return eligibleShippingMethods.map((method) => ({
      id: method.id,
      name: method.name,
      price: money(method.priceWithTax, currency),
    }));
  }

  async setShipping(optionId: string): Promise<Cart> {
    const { setOrderShippingMethod } = await this.gql<{ setOrderShippingMethod: Json }>(
      `mutation ($ids: [ID!]!) { setOrderShippingMethod(shippingMethodId: $ids) {
         ... on Order { ${ORDER_FIELDS} } ... on ErrorResult { errorCode message } } }`,
      { ids: [optionId] },
    );
    return this.toCart(this.unwrap(setOrderShippingMethod));
  }

  async paymentOptions(): Promise<PaymentOption[]> {
    const { eligiblePaymentMethods } = await this.gql<{ eligiblePaymentMethods: Json[] }>(
      `{ eligiblePaymentMethods { id code name isEligible } }`,
    );
    return (
      eligiblePaymentMethods
        // The demo's yen-channel methods (jp-gatewaykit-*) also show in the default channel; skip them.
        .filter((method) => method.isEligible && String(method.code).startsWith('gatewaykit-'))
        .map((method) => {
          const code = String(method.code);
          const kind = code.endsWith('-card') ? 'card' : code.endsWith('-hosted') ? 'hosted' : 'local';
          const label =
            kind === 'hosted' ? "Card on the gateway's secure page" : kind === 'card' ? 'Card' : method.name;
          return { id: code, kind, label };
        })
    );
  }

  async cardElement(option: PaymentOption): Promise<CardElementSession> {
    const { gatewaykitCardElement: answer } = await this.gql<{ gatewaykitCardElement: Json }>(
      `query ($code: String!) { gatewaykitCardElement(paymentMethodCode: $code) { sessionToken scriptUrl expiresAt } }`,
      { code: option.id },
    );
    if (typeof answer?.sessionToken !== 'string' || typeof answer.scriptUrl !== 'string')
      throw new Error('The store did not hand over a card form');
    return {
      token: answer.sessionToken,
      scriptUrl: answer.scriptUrl,
      expiresAt: String(answer.expiresAt ?? ''),
      fetchedAt: Date.now(),
    };
  }

  async pay(option: PaymentOption, choice: CardChoice | undefined): Promise<PayResult> {
    const order = await this.activeOrder();
    if (!order) return { kind: 'failed', reason: 'Your cart is empty' };
    const input: Json = { paymentMethodCode: option.id };
    if (option.kind === 'card') {
      if (!choice) return { kind: 'failed', reason: 'Choose a saved card or enter a card' };
      if ('savedCardId' in choice) input.savedCardId = choice.savedCardId;
      else if ('elementMethodId' in choice) {
        // The element's payment method (docs/card-element.md); the plugin decides whether it may be charged.
        input.elementPaymentMethodId = choice.elementMethodId;
        input.saveCard = choice.saveCard;
      } else input.card = toGatewayCard(choice.card);
    }
    const { gatewaykitStartPayment: result } = await this.gql<{ gatewaykitStartPayment: Json }>(
      `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) {
        __typename
        ... on GatewaykitPaymentRedirect { url orderNo }
        ... on GatewaykitPaymentCompleted { order { id code state totalWithTax currencyCode } }
        ... on GatewaykitPaymentPending { orderNo message }
        ... on GatewaykitPaymentError { errorCode message } } }`,
      { input },
    );
    switch (result.__typename) {
      case 'GatewaykitPaymentRedirect':
        return { kind: 'redirect', url: result.url };
      case 'GatewaykitPaymentCompleted':
        return { kind: 'placed', order: toOrder(result.order) };
      case 'GatewaykitPaymentPending':
        // The return page polls the order until the gateway's callback settles it.
        return { kind: 'redirect', url: `/order/${order.code}?store=vendure&payment=pending` };
      default:
        return { kind: 'failed', reason: result.message };
    }
  }

  async readReturn(path: string, query: URLSearchParams): Promise<ReturnState> {
    const code = decodeURIComponent(path.split('/').pop() ?? '');
    const fields = 'id code state totalWithTax currencyCode payments { id state errorMessage createdAt }';
    // An unpaid order is still the session's active order (orderByCode refuses unplaced guest
    // orders); a paid one is no longer active and is read by its code.
    const { activeOrder } = await this.gql<{ activeOrder: Json | null }>(`{ activeOrder { ${fields} } }`);
    let order = activeOrder?.code === code ? activeOrder : undefined;
    if (!order) {
      const { orderByCode } = await this.gql<{ orderByCode: Json | null }>(
        `query ($code: String!) { orderByCode(code: $code) { ${fields} } }`,
        { code },
      );
      order = orderByCode ?? undefined;
    }
    // Fixed words: the code comes from the link's path, which anyone can write.
    if (!order) return { kind: 'failed', reason: 'This order was not found for this browser session' };
    if (PAID_STATES.includes(order.state)) return { kind: 'placed', order: toOrder(order) };
    const declined = (order.payments as Json[]).filter((payment) => payment.state === 'Declined').pop();
    if (query.get('payment') === 'failed' || query.get('payment') === 'cancelled')
      return { kind: 'failed', reason: declined?.errorMessage ?? 'The payment failed' };
    // The store's return route says so only for a charge it could not add to this (unpaid) order.
    if (query.get('payment') === 'not_applied') return { kind: 'not-applied' };
    return { kind: 'pending', message: 'Waiting for the gateway to confirm the payment…' };
  }

  async currentCustomer(): Promise<Customer | undefined> {
    if (!localStorage.getItem(TOKEN_KEY)) return undefined;
    const { activeCustomer } = await this.gql<{ activeCustomer: Json | null }>(
      `{ activeCustomer { emailAddress firstName lastName } }`,
    );
    return activeCustomer
      ? {
          email: activeCustomer.emailAddress,
          firstName: activeCustomer.firstName,
          lastName: activeCustomer.lastName,
        }
      : undefined;
  }

  async login(email: string, password: string): Promise<void> {
    const { login } = await this.gql<{ login: Json }>(
      `mutation ($u: String!, $p: String!) { login(username: $u, password: $p) {
         __typename ... on ErrorResult { errorCode message } } }`,
      { u: email, p: password },
    );
    if (login.__typename === 'InvalidCredentialsError')
      throw new FieldError('password', 'Wrong email or password');
    this.unwrap(login, 'email');
  }

  async register(customer: Customer, password: string): Promise<void> {
    const { registerCustomerAccount } = await this.gql<{ registerCustomerAccount: Json }>(
      `mutation ($input: RegisterCustomerInput!) { registerCustomerAccount(input: $input) {
         __typename ... on ErrorResult { errorCode message } } }`,
      {
        input: {
          emailAddress: customer.email,
          firstName: customer.firstName,
          lastName: customer.lastName,
          password,
        },
      },
    );
    this.unwrap(
      registerCustomerAccount,
      /password/i.test(registerCustomerAccount.message ?? '') ? 'password' : 'email',
    );
    await this.login(customer.email, password);
  }

  async logout(): Promise<void> {
    await this.gql(`mutation { logout { success } }`).catch(() => undefined);
    localStorage.removeItem(TOKEN_KEY);
  }

  private async cardMethodCode(): Promise<string> {
    return this.config.cardMethodCode;
  }

  async savedCards(): Promise<SavedCard[]> {
    if (!(await this.currentCustomer())) return [];
    const { gatewaykitSavedCards } = await this.gql<{ gatewaykitSavedCards: Json[] }>(
      `query ($code: String!) { gatewaykitSavedCards(paymentMethodCode: $code) { id brand last4 maskCardNo } }`,
      { code: await this.cardMethodCode() },
    );
    return gatewaykitSavedCards.map(toSavedCard);
  }

  async saveCard(card: CardInput, address?: Address): Promise<SavedCard> {
    const billing = address ?? (await this.getCart())?.address;
    if (!billing) throw new FieldError('line1', 'Enter your address first');
    const { gatewaykitSaveCard } = await this.gql<{ gatewaykitSaveCard: Json }>(
      `mutation ($input: GatewaykitSaveCardInput!) { gatewaykitSaveCard(input: $input) { id brand last4 maskCardNo } }`,
      {
        input: {
          paymentMethodCode: await this.cardMethodCode(),
          card: toGatewayCard(card),
          line1: billing.line1,
          city: billing.city,
          countryCode: billing.countryCode.toUpperCase(),
          postalCode: billing.postalCode,
          province: billing.province,
        },
      },
    );
    return toSavedCard(gatewaykitSaveCard);
  }

  async removeCard(id: string): Promise<void> {
    await this.gql(
      `mutation ($code: String!, $id: String!) { gatewaykitRemoveSavedCard(paymentMethodCode: $code, id: $id) }`,
      {
        code: await this.cardMethodCode(),
        id,
      },
    );
  }
}

function money(minor: unknown, currency: string): Money {
  return { amount: Number(minor ?? 0) / 100, currency };
}

function toGatewayCard(card: CardInput): Json {
  return {
    cardNo: card.cardNo,
    cardExpireMonth: card.expMonth,
    cardExpireYear: card.expYear,
    cardSecurityCode: card.cvc,
  };
}

function toSavedCard(card: Json): SavedCard {
  return { id: card.id, label: `${card.brand ?? 'Card'} ending ${card.last4 ?? card.maskCardNo.slice(-4)}` };
}

function toOrder(order: Json): PlacedOrder {
  return {
    id: order.id,
    reference: order.code,
    total: money(order.totalWithTax, order.currencyCode),
    paymentStatus: order.state === 'PaymentSettled' ? 'paid' : order.state,
  };
}
