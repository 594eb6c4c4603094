/** What the pages need from a store; one adapter per platform implements it. */

export type StoreId = 'medusa' | 'vendure';

export interface Money {
  amount: number;
  currency: string;
}

export interface Variant {
  id: string;
  title: string;
  price: Money;
}

export interface Product {
  id: string;
  title: string;
  description: string;
  variants: Variant[];
}

export interface CartLine {
  id: string;
  title: string;
  quantity: number;
  total: Money;
}

export interface Address {
  firstName: string;
  lastName: string;
  line1: string;
  city: string;
  postalCode: string;
  countryCode: string;
  province: string;
  phone: string;
}

export interface Cart {
  id: string;
  lines: CartLine[];
  itemCount: number;
  subtotal: Money;
  shipping: Money;
  total: Money;
  email: string | undefined;
  address: Address | undefined;
  shippingOptionId: string | undefined;
}

export interface ShippingOption {
  id: string;
  name: string;
  price: Money;
}

/** A way to pay that the store enables; `kind` decides which fields the payment page shows. */
export interface PaymentOption {
  id: string;
  kind: 'card' | 'hosted' | 'local';
  label: string;
}

export interface SavedCard {
  id: string;
  label: string;
}

/** Card fields exactly as typed; passed straight to the store API and never kept anywhere. */
export interface CardInput {
  cardNo: string;
  expMonth: string;
  expYear: string;
  cvc: string;
}

/**
 * How the shopper pays by card: a saved card, a card typed into the storefront (only stores that opted
 * in to raw card data), or a payment method the gateway's card element created (docs/card-element.md).
 */
export type CardChoice =
  | { savedCardId: string }
  | { card: CardInput }
  | { elementMethodId: string; saveCard: boolean };

/** A session token for the gateway's card element, as the store minted it. */
export interface CardElementSession {
  token: string;
  scriptUrl: string;
  expiresAt: string;
  /** When the browser received it (Date.now()): tokens older than 25 minutes are renewed. */
  fetchedAt: number;
}

export type PayResult =
  | { kind: 'redirect'; url: string }
  | { kind: 'placed'; order: PlacedOrder }
  | { kind: 'pending'; message: string }
  | { kind: 'failed'; reason: string };

export interface PlacedOrder {
  id: string;
  reference: string;
  total: Money;
  paymentStatus: string;
}

/**
 * Where the shopper is after the gateway's page: order placed, failed (why), or still waiting; or
 * `elsewhere`: the link names a cart that is not this browser's (or no valid one), so only what is
 * known about that payment is shown, read-only, and nothing is taken into this browser or account;
 * or `not-applied`: the gateway took the payment but the store could not apply it to the order (a
 * coupon ended, stock gone): the shop is alerted, and paying again is refused.
 */
export type ReturnState =
  | { kind: 'placed'; order: PlacedOrder }
  | { kind: 'failed'; reason: string }
  | { kind: 'pending'; message: string }
  | { kind: 'elsewhere'; message: string }
  | { kind: 'not-applied' };

export interface Customer {
  email: string;
  firstName: string;
  lastName: string;
}

/** A validation problem the store reported for one form field. */
export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StoreAdapter {
  readonly id: StoreId;
  readonly name: string;
  /** Whether the store accepts typed card numbers (PCI opt-in) and for whom. */
  readonly rawCards: 'no' | 'logged-in' | 'anyone';
  listProducts(): Promise<Product[]>;
  getCart(): Promise<Cart | undefined>;
  addToCart(variantId: string, quantity: number): Promise<Cart>;
  removeLine(lineId: string): Promise<Cart | undefined>;
  setDetails(email: string, address: Address): Promise<Cart>;
  shippingOptions(): Promise<ShippingOption[]>;
  setShipping(optionId: string): Promise<Cart>;
  paymentOptions(): Promise<PaymentOption[]>;
  /** A card element token for this card option (Medusa route / Vendure query), minted by the store. */
  cardElement(option: PaymentOption): Promise<CardElementSession>;
  pay(option: PaymentOption, card: CardChoice | undefined): Promise<PayResult>;
  /** Reads the outcome after the gateway sent the shopper back (the return page's query). */
  readReturn(path: string, query: URLSearchParams): Promise<ReturnState>;
  currentCustomer(): Promise<Customer | undefined>;
  login(email: string, password: string): Promise<void>;
  register(customer: Customer, password: string): Promise<void>;
  logout(): Promise<void>;
  savedCards(): Promise<SavedCard[]>;
  /** Saves a card on the customer account; the address defaults to the cart's. */
  saveCard(card: CardInput, address?: Address): Promise<SavedCard>;
  removeCard(id: string): Promise<void>;
}
