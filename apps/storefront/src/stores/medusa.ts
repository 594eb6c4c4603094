import type { StorefrontConfig } from '../config';
import { requestJson, StoreError } from './http';
import {
  type Address,
  type CardChoice,
  type CardElementSession,
  type CardInput,
  type Cart,
  type Customer,
  FieldError,
  type PaymentOption,
  type PayResult,
  type PlacedOrder,
  type Product,
  type ReturnState,
  type SavedCard,
  type ShippingOption,
  type StoreAdapter,
} from './types';

// Provider ids of the one gatewaykit config entry (packages/medusa-provider).
const CARD = 'pp_gatewaykit_gatewaykit';
const HOSTED = 'pp_gatewaykit-hosted_gatewaykit';
const LOCAL = 'pp_gatewaykit-local_gatewaykit';

const CART_KEY = 'gatewaykit.medusa.cart';
const TOKEN_KEY = 'gatewaykit.medusa.token';

/** What a Medusa cart id looks like (`cart_` and a ULID); anything else never reaches a request. */
const CART_ID = /^cart_[A-Za-z0-9]+$/;

/**
 * The API path of cart `id` (and `rest` under it). The id is checked and encoded: a cart id is a
 * bearer token that may come from storage a script wrote or from a link, and must not be able to
 * reach another route of the same origin (`cart_x/../../customers/me`).
 */
function cartPath(id: string, rest = ''): string {
  // A plain Error, not a StoreError: nothing was asked, and no store answer may be assumed from it.
  if (!CART_ID.test(id)) throw new Error('This is not a Medusa cart id (cart_…); it was refused');
  return `/store/carts/${encodeURIComponent(id)}${rest}`;
}

/** One path segment of an id the store handed out (line item, payment collection, saved card). */
const segment = encodeURIComponent;

// biome-ignore lint/suspicious/noExplicitAny: untyped store JSON, read field by field into typed objects.
type Json = Record<string, any>;

interface MedusaSession {
  id: string;
  provider_id: string;
  status: string;
  data: { redirectUrl?: string; error?: string; outcome?: { status?: string } };
}

/** Medusa 2 Store API with the publishable key; amounts are in major units (25 = 25.00). */
export class MedusaStore implements StoreAdapter {
  readonly id = 'medusa' as const;
  readonly name = 'Medusa';
  readonly rawCards: StoreAdapter['rawCards'];
  private regionId: string | undefined;

  constructor(private readonly config: StorefrontConfig['medusa']) {
    this.rawCards = config.rawCards ? 'logged-in' : 'no';
  }

  private get token(): string | undefined {
    return localStorage.getItem(TOKEN_KEY) ?? undefined;
  }

  /** This browser's cart: only ever one the store created for it (never one named by a link). */
  private get cartId(): string | undefined {
    const id = localStorage.getItem(CART_KEY) ?? undefined;
    if (id !== undefined && !CART_ID.test(id)) {
      // Not a cart id Medusa made: dropped, a fresh cart is made when the shopper adds an item.
      localStorage.removeItem(CART_KEY);
      return undefined;
    }
    return id;
  }

  /** This browser's cart id, or the shopper is told the cart is empty. */
  private requireCartId(): string {
    const id = this.cartId;
    if (!id) throw new Error('Your cart is empty');
    return id;
  }

  private api<T = Json>(method: string, path: string, json?: unknown, token = this.token): Promise<T> {
    return requestJson<T>(`${this.config.apiBase}${path}`, {
      method,
      headers: {
        'x-publishable-api-key': this.config.publishableKey,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      json,
    });
  }

  private async region(): Promise<{ id: string; currency: string }> {
    const { regions } = await this.api<{ regions: Json[] }>('GET', '/store/regions');
    const region = regions.find((r) => r.name === this.config.regionName) ?? regions[0];
    if (!region) throw new Error('The Medusa store has no region');
    this.regionId = region.id;
    return { id: region.id, currency: region.currency_code };
  }

  async listProducts(): Promise<Product[]> {
    const region = await this.region();
    const { products } = await this.api<{ products: Json[] }>(
      'GET',
      `/store/products?region_id=${segment(region.id)}&fields=*variants.calculated_price&limit=50`,
    );
    return products.map((product) => ({
      id: product.id,
      title: product.title,
      description: product.description ?? '',
      variants: (product.variants as Json[]).map((variant) => ({
        id: variant.id,
        title: variant.title,
        price: {
          amount: Number(variant.calculated_price?.calculated_amount ?? 0),
          currency: (variant.calculated_price?.currency_code ?? region.currency).toUpperCase(),
        },
      })),
    }));
  }

  private toCart(cart: Json): Cart {
    const currency = String(cart.currency_code).toUpperCase();
    const money = (amount: unknown) => ({ amount: Number(amount ?? 0), currency });
    const address = cart.shipping_address as Json | null;
    return {
      id: cart.id,
      lines: ((cart.items ?? []) as Json[]).map((item) => ({
        id: item.id,
        title: [item.product_title ?? item.title, item.variant_title].filter(Boolean).join(' · '),
        quantity: item.quantity,
        total: money(item.total),
      })),
      itemCount: ((cart.items ?? []) as Json[]).reduce((sum, item) => sum + Number(item.quantity), 0),
      subtotal: money(cart.item_total),
      shipping: money(cart.shipping_total),
      total: money(cart.total),
      email: cart.email ?? undefined,
      address: address?.address_1
        ? {
            firstName: address.first_name ?? '',
            lastName: address.last_name ?? '',
            line1: address.address_1 ?? '',
            city: address.city ?? '',
            postalCode: address.postal_code ?? '',
            countryCode: String(address.country_code ?? '').toUpperCase(),
            province: address.province ?? '',
            phone: address.phone ?? '',
          }
        : undefined,
      shippingOptionId: (cart.shipping_methods as Json[] | undefined)?.[0]?.shipping_option_id,
    };
  }

  private async rawCart(): Promise<Json | undefined> {
    const id = this.cartId;
    if (!id) return undefined;
    try {
      const { cart } = await this.api<{ cart: Json }>(
        'GET',
        cartPath(
          id,
          '?fields=*items,*shipping_address,*shipping_methods,*payment_collection,*payment_collection.payment_sessions',
        ),
      );
      if (cart.completed_at) {
        localStorage.removeItem(CART_KEY);
        return undefined;
      }
      return cart;
    } catch (error) {
      if (error instanceof StoreError && error.status === 404) {
        localStorage.removeItem(CART_KEY);
        return undefined;
      }
      throw error;
    }
  }

  async getCart(): Promise<Cart | undefined> {
    const cart = await this.rawCart();
    return cart ? this.toCart(cart) : undefined;
  }

  async addToCart(variantId: string, quantity: number): Promise<Cart> {
    let id = this.cartId;
    if (!id || !(await this.rawCart())) {
      const region = this.regionId ?? (await this.region()).id;
      const { cart } = await this.api<{ cart: Json }>('POST', '/store/carts', { region_id: region });
      id = cart.id as string;
      localStorage.setItem(CART_KEY, id);
    }
    const { cart } = await this.api<{ cart: Json }>('POST', cartPath(id, '/line-items'), {
      variant_id: variantId,
      quantity,
    });
    return this.toCart(cart);
  }

  async removeLine(lineId: string): Promise<Cart | undefined> {
    await this.api('DELETE', cartPath(this.requireCartId(), `/line-items/${segment(lineId)}`));
    return this.getCart();
  }

  async setDetails(email: string, address: Address): Promise<Cart> {
    const medusaAddress = {
      first_name: address.firstName,
      last_name: address.lastName,
      address_1: address.line1,
      city: address.city,
      postal_code: address.postalCode,
      country_code: address.countryCode.toLowerCase(),
      province: address.province,
      phone: address.phone,
    };
    try {
      const { cart } = await this.api<{ cart: Json }>('POST', cartPath(this.requireCartId()), {
        email,
        shipping_address: medusaAddress,
        billing_address: medusaAddress,
      });
      return this.toCart(cart);
    } catch (error) {
      // Medusa names the offending field in its validation message.
      if (error instanceof StoreError && /email/i.test(error.message))
        throw new FieldError('email', error.message);
      if (error instanceof StoreError && /country/i.test(error.message))
        throw new FieldError('countryCode', 'This store does not ship to that country');
      throw error;
    }
  }

  async shippingOptions(): Promise<ShippingOption[]> {
    const { shipping_options } = await this.api<{ shipping_options: Json[] }>(
      'GET',
      `/store/shipping-options?cart_id=${segment(this.requireCartId())}`,
    );
    const cart = await this.getCart();
    const currency = cart?.total.currency ?? 'USD';
    return shipping_options.map((option) => ({
      id: option.id,
      name: option.name,
      price: { amount: Number(option.amount ?? option.calculated_price?.calculated_amount ?? 0), currency },
    }));
  }

  async setShipping(optionId: string): Promise<Cart> {
    const { cart } = await this.api<{ cart: Json }>(
      'POST',
      cartPath(this.requireCartId(), '/shipping-methods'),
      {
        option_id: optionId,
      },
    );
    return this.toCart(cart);
  }

  async paymentOptions(): Promise<PaymentOption[]> {
    const region = this.regionId ?? (await this.region()).id;
    const { payment_providers } = await this.api<{ payment_providers: Json[] }>(
      'GET',
      `/store/payment-providers?region_id=${segment(region)}`,
    );
    const ids = new Set(payment_providers.map((provider) => provider.id as string));
    const options: PaymentOption[] = [];
    if (ids.has(CARD)) options.push({ id: CARD, kind: 'card', label: 'Card' });
    if (ids.has(HOSTED))
      options.push({ id: HOSTED, kind: 'hosted', label: "Card on the gateway's secure page" });
    if (ids.has(LOCAL)) {
      for (const method of this.config.localMethods)
        options.push({ id: `${LOCAL}:${method}`, kind: 'local', label: method });
    }
    return options;
  }

  async cardElement(option: PaymentOption): Promise<CardElementSession> {
    const cartId = this.cartId;
    if (!cartId) throw new Error('Your cart is empty');
    const answer = await this.api<Json>('POST', '/store/gatewaykit/card-element', {
      cart_id: cartId,
      provider_id: option.id,
    });
    if (typeof answer.session_token !== 'string' || typeof answer.script_url !== 'string')
      throw new Error('The store did not hand over a card form');
    return {
      token: answer.session_token,
      scriptUrl: answer.script_url,
      expiresAt: String(answer.expires_at ?? ''),
      fetchedAt: Date.now(),
    };
  }

  private async paymentCollectionId(): Promise<string> {
    const cart = await this.rawCart();
    if (!cart) throw new Error('Your cart is empty');
    if (cart.payment_collection?.id) return cart.payment_collection.id;
    const { payment_collection } = await this.api<{ payment_collection: Json }>(
      'POST',
      '/store/payment-collections',
      { cart_id: cart.id },
    );
    return payment_collection.id;
  }

  private async startSession(providerId: string, data: Json): Promise<MedusaSession> {
    const collectionId = await this.paymentCollectionId();
    const { payment_collection } = await this.api<{ payment_collection: Json }>(
      'POST',
      `/store/payment-collections/${segment(collectionId)}/payment-sessions`,
      { provider_id: providerId, data },
    );
    return (payment_collection.payment_sessions as MedusaSession[])[0]!;
  }

  private async currentSession(): Promise<MedusaSession | undefined> {
    const cart = await this.rawCart();
    return (cart?.payment_collection?.payment_sessions as MedusaSession[] | undefined)?.[0];
  }

  async pay(option: PaymentOption, choice: CardChoice | undefined): Promise<PayResult> {
    const cartId = this.cartId;
    if (!cartId) return { kind: 'failed', reason: 'Your cart is empty' };
    try {
      if (option.kind !== 'card') {
        const [providerId, localMethod] = option.id.split(':');
        const session = await this.startSession(providerId!, localMethod ? { localMethod } : {});
        if (session.data.redirectUrl) return { kind: 'redirect', url: session.data.redirectUrl };
        return { kind: 'failed', reason: session.data.error ?? 'The gateway did not open a payment page' };
      }
      if (!choice) return { kind: 'failed', reason: 'Choose a saved card or enter a card' };
      if ('elementMethodId' in choice) {
        // The element's payment method (docs/card-element.md): the store decides whether it may be
        // charged; saveCard keeps it on the logged-in customer's account after the payment.
        await this.startSession(option.id, {
          customerPaymentMethodId: choice.elementMethodId,
          saveCard: choice.saveCard,
        });
        return await this.complete(cartId);
      }
      const savedCardId =
        'savedCardId' in choice ? choice.savedCardId : (await this.saveCard(choice.card)).id;
      await this.startSession(CARD, { customerPaymentMethodId: savedCardId });
      return await this.complete(cartId);
    } catch (error) {
      if (error instanceof FieldError) throw error;
      return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Completes the cart; when the payment needs more (3DS) or failed, the session says what. */
  private async complete(cartId: string): Promise<PayResult> {
    try {
      const result = await this.api<Json>('POST', cartPath(cartId, '/complete'));
      if (result.type === 'order') {
        localStorage.removeItem(CART_KEY);
        return { kind: 'placed', order: toOrder(result.order) };
      }
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
    }
    const session = await this.currentSession();
    if (session?.status === 'requires_more' && session.data.redirectUrl)
      return { kind: 'redirect', url: session.data.redirectUrl };
    if (session?.status === 'error' || !session)
      return { kind: 'failed', reason: session?.data.error ?? 'The payment was refused' };
    // Accepted but not decided yet: the return page waits for the gateway's callback.
    return {
      kind: 'redirect',
      url: `/checkout/return?store=medusa&cart_id=${encodeURIComponent(cartId)}&outcome=pending`,
    };
  }

  /**
   * The return page. Only this browser's own cart (the one in storage, which only the store ever
   * created for it) is completed here. A `cart_id` in the link is never adopted: it is compared with
   * the stored cart, and a link naming another cart (a forwarded or crafted link, or the payment was
   * started in another browser) gets that payment's state read-only, without storing the cart,
   * completing it or attaching it to the logged-in customer. A malformed id is refused unsent.
   */
  async readReturn(_path: string, query: URLSearchParams): Promise<ReturnState> {
    const linked = query.get('cart_id') ?? undefined;
    if (linked !== undefined && !CART_ID.test(linked))
      return { kind: 'elsewhere', message: 'This return link does not name a valid cart; it was refused.' };
    const own = this.cartId;
    if (linked !== undefined && linked !== own) return this.readForeignReturn(linked);
    if (!own) return { kind: 'failed', reason: 'This return has no cart' };
    const { cart, session, outcome } = await this.paymentOfCart(own);
    if (cart.completed_at || outcome === 'succeeded' || session?.status === 'authorized') {
      const result = await this.complete(own);
      if (result.kind === 'placed') return result;
      if (result.kind === 'failed') return result;
    }
    if (session?.status === 'error' || outcome === 'failed')
      return { kind: 'failed', reason: session?.data.error ?? 'The payment failed' };
    return { kind: 'pending', message: 'Waiting for the gateway to confirm the payment…' };
  }

  /** A cart's completion and its payment session with the gateway's outcome: what the return page judges. */
  private async paymentOfCart(cartId: string, token?: string) {
    const { cart } = await this.api<{ cart: Json }>(
      'GET',
      cartPath(cartId, '?fields=completed_at,*payment_collection,*payment_collection.payment_sessions'),
      undefined,
      token,
    );
    const session = (cart.payment_collection?.payment_sessions as MedusaSession[] | undefined)?.[0];
    return { cart, session, outcome: session?.data.outcome?.status };
  }

  /**
   * The payment state of a cart that is not this browser's, read without the customer's token and
   * written nowhere: the shopper's own cart and account stay exactly as they were.
   */
  private async readForeignReturn(cartId: string): Promise<ReturnState> {
    const notice = (state: string) => ({
      kind: 'elsewhere' as const,
      message: `${state} Nothing was added to the cart or the account in this browser.`,
    });
    let payment: Awaited<ReturnType<MedusaStore['paymentOfCart']>>;
    try {
      payment = await this.paymentOfCart(cartId, '');
    } catch (error) {
      if (error instanceof StoreError && error.status === 404)
        return notice('The cart of this payment link was not found.');
      throw error;
    }
    const { cart, session, outcome } = payment;
    if (cart.completed_at) return notice('This payment is complete and its order is placed.');
    if (outcome === 'succeeded' || session?.status === 'authorized')
      return notice('This payment is accepted; the store places its order.');
    if (session?.status === 'error' || outcome === 'failed')
      return notice(`This payment did not go through (${session?.data.error ?? 'refused'}).`);
    if (session) return notice('This payment is still waiting for the gateway.');
    return notice('The cart this link names is not the one in this browser, and it has no payment.');
  }

  async currentCustomer(): Promise<Customer | undefined> {
    if (!this.token) return undefined;
    try {
      const { customer } = await this.api<{ customer: Json }>('GET', '/store/customers/me');
      return {
        email: customer.email,
        firstName: customer.first_name ?? '',
        lastName: customer.last_name ?? '',
      };
    } catch {
      localStorage.removeItem(TOKEN_KEY);
      return undefined;
    }
  }

  async login(email: string, password: string): Promise<void> {
    let token: string;
    try {
      ({ token } = await this.api<{ token: string }>(
        'POST',
        '/auth/customer/emailpass',
        { email, password },
        '',
      ));
    } catch (error) {
      if (error instanceof StoreError && error.status === 401)
        throw new FieldError('password', 'Wrong email or password');
      throw error;
    }
    localStorage.setItem(TOKEN_KEY, token);
    // The cart started as a guest now belongs to the customer (saved cards need that).
    const cartId = this.cartId;
    if (cartId) await this.api('POST', cartPath(cartId, '/customer')).catch(() => undefined);
  }

  async register(customer: Customer, password: string): Promise<void> {
    let registration: string;
    try {
      ({ token: registration } = await this.api<{ token: string }>(
        'POST',
        '/auth/customer/emailpass/register',
        { email: customer.email, password },
        '',
      ));
    } catch (error) {
      if (error instanceof StoreError && /exist/i.test(error.message))
        throw new FieldError('email', 'An account with this email already exists; log in instead');
      throw error;
    }
    await this.api(
      'POST',
      '/store/customers',
      { email: customer.email, first_name: customer.firstName, last_name: customer.lastName },
      registration,
    );
    await this.login(customer.email, password);
  }

  async logout(): Promise<void> {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(CART_KEY);
  }

  async savedCards(): Promise<SavedCard[]> {
    if (!this.token) return [];
    const { payment_methods } = await this.api<{ payment_methods: Json[] }>(
      'GET',
      '/store/gatewaykit/payment-methods',
    );
    return payment_methods.map((method) => ({
      id: method.id,
      label: `${method.data?.brand ?? 'Card'} ending ${method.data?.last4 ?? '????'}`,
    }));
  }

  async saveCard(card: CardInput, address?: Address): Promise<SavedCard> {
    if (!this.token)
      throw new FieldError('cardNo', 'Log in to use a card: this store keeps cards on your account');
    const customer = await this.currentCustomer();
    const cart = await this.getCart();
    const billing = address ?? cart?.address;
    if (!billing) throw new FieldError('line1', 'Enter your address first');
    const { payment_method } = await this.api<{ payment_method: Json }>(
      'POST',
      '/store/gatewaykit/payment-methods',
      {
        card: {
          cardNo: card.cardNo,
          cardExpireMonth: card.expMonth,
          cardExpireYear: card.expYear,
          cardSecurityCode: card.cvc,
        },
        billingDetail: {
          firstName: billing.firstName || customer?.firstName || 'Customer',
          lastName: billing.lastName || customer?.lastName || 'Customer',
          email: customer?.email ?? cart?.email,
          phone: billing.phone || '0000000000',
          address: {
            line1: billing.line1,
            city: billing.city,
            country: billing.countryCode.toUpperCase(),
            state: billing.province.replace(/^[a-z]{2}-/i, '').toUpperCase(),
            postalCode: billing.postalCode,
          },
        },
      },
    );
    return {
      id: payment_method.id,
      label: `${payment_method.data?.brand ?? 'Card'} ending ${payment_method.data?.last4}`,
    };
  }

  async removeCard(id: string): Promise<void> {
    await this.api('DELETE', `/store/gatewaykit/payment-methods/${segment(id)}`);
  }
}

function toOrder(order: Json): PlacedOrder {
  return {
    id: order.id,
    reference: order.display_id ? `#${order.display_id}` : order.id,
    total: { amount: Number(order.total ?? 0), currency: String(order.currency_code ?? '').toUpperCase() },
    paymentStatus:
      order.payment_status === 'captured' || !order.payment_status ? 'paid' : order.payment_status,
  };
}
