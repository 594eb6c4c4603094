import { customerIpOf, type PaymentAddress, toOrderAmount } from '@gatewaykit/core';
import type { BuyerDetails } from './session-data';

interface CartAddress {
  first_name?: string | null;
  last_name?: string | null;
  address_1?: string | null;
  address_2?: string | null;
  city?: string | null;
  country_code?: string | null;
  province?: string | null;
  postal_code?: string | null;
  phone?: string | null;
}

/** What buyerFromCart reads, for a cart module read: its fields and the relations they cross. */
export const BUYER_CART_RELATIONS = ['billing_address', 'shipping_address', 'items'];
const ADDRESS_FIELDS = [
  'first_name',
  'last_name',
  'address_1',
  'address_2',
  'city',
  'country_code',
  'province',
  'postal_code',
  'phone',
];
export const BUYER_CART_FIELDS = [
  'email',
  'currency_code',
  ...ADDRESS_FIELDS.map((field) => `billing_address.${field}`),
  ...ADDRESS_FIELDS.map((field) => `shipping_address.${field}`),
  'items.title',
  'items.quantity',
  'items.unit_price',
];

export interface CartForBuyer {
  email?: string | null;
  currency_code?: string | null;
  billing_address?: CartAddress | null;
  shipping_address?: CartAddress | null;
  items?: ({ title?: string | null; quantity?: unknown; unit_price?: unknown } | null)[] | null;
}

function toAddress(address: CartAddress | null | undefined): PaymentAddress | undefined {
  if (!address?.address_1 || !address.city || !address.country_code) return undefined;
  // Medusa checks only the shipping country: a billing country is any string the shopper wrote.
  const country = address.country_code.toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) return undefined;
  // Medusa stores provinces as ISO 3166-2 ("us-tx"); the gateway wants the subdivision part ("TX").
  const province = address.province?.toUpperCase();
  const state = province?.startsWith(`${country}-`) ? province.slice(3) : province;
  return {
    line1: address.address_1,
    line2: address.address_2 || undefined,
    city: address.city,
    country,
    state: state || undefined,
    postalCode: address.postal_code || undefined,
  };
}

function unitPrice(value: unknown, currency: string): string | undefined {
  try {
    return toOrderAmount(String(value), currency);
  } catch {
    return undefined;
  }
}

/** The shopper's details the gateway asks for, taken from the cart (the storefront already sees them). */
export function buyerFromCart(cart: CartForBuyer, ip: string | undefined): BuyerDetails | undefined {
  const billing = cart.billing_address ?? cart.shipping_address;
  const billingAddress = toAddress(billing);
  if (!cart.email || !billingAddress || !billing?.first_name || !billing.last_name) return undefined;
  const currency = (cart.currency_code ?? 'USD').toUpperCase();
  const items = (cart.items ?? []).flatMap((item) => {
    const price = item ? unitPrice(item.unit_price, currency) : undefined;
    return item?.title && price
      ? [{ title: item.title, quantity: Number(item.quantity) || 1, unitPrice: price }]
      : [];
  });
  return {
    email: cart.email,
    firstName: billing.first_name,
    lastName: billing.last_name,
    phone: billing.phone || undefined,
    billingAddress,
    shippingAddress: toAddress(cart.shipping_address),
    items: items.length > 0 ? items : undefined,
    ip: customerIpOf(ip),
  };
}

/** JSON with object keys sorted at every depth and undefined left out: stored session data comes back
 * from PostgreSQL's jsonb with its keys in another order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Whether the cart's buyer is no longer the one a card session copied when it was made (email, name,
 * addresses or items changed since: Medusa keeps a session while the total stays the same). The card is
 * charged with the copy, so the gateway would judge the payment on details the order does not have.
 */
export function buyerChangedSince(stored: BuyerDetails | undefined, cart: CartForBuyer): boolean {
  // The address is not the cart's: a session stored before it was normalised (customerIpOf) still
  // compares as the same buyer.
  const now = buyerFromCart(cart, undefined);
  return comparable(now && { ...now, ip: undefined }) !== comparable(stored && { ...stored, ip: undefined });
}

/** A buyer as canonical JSON, its items in a fixed order: two reads of a cart may list lines differently. */
function comparable(buyer: BuyerDetails | undefined): string {
  if (!buyer?.items) return canonical(buyer);
  return canonical({ ...buyer, items: buyer.items.map(canonical).sort() });
}
