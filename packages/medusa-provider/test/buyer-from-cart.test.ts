import { describe, expect, it } from 'vitest';
import { buyerChangedSince, buyerFromCart } from '../src/lib/buyer-from-cart';
import type { BuyerDetails } from '../src/lib/session-data';

const address = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  address_1: '1 Test Street',
  city: 'Austin',
  country_code: 'us',
  province: 'us-tx',
  postal_code: '73301',
  phone: '5125550100',
};

describe('buyerFromCart', () => {
  it('maps the cart to the gateway buyer: ISO country, state code, item prices in gateway units', () => {
    const buyer = buyerFromCart(
      {
        email: 'ada@example.com',
        currency_code: 'usd',
        billing_address: address,
        shipping_address: address,
        items: [{ title: 'Shirt', quantity: 2, unit_price: 25 }],
      },
      '10.0.0.1',
    );
    expect(buyer).toEqual({
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '5125550100',
      billingAddress: {
        line1: '1 Test Street',
        line2: undefined,
        city: 'Austin',
        country: 'US',
        state: 'TX',
        postalCode: '73301',
      },
      shippingAddress: {
        line1: '1 Test Street',
        line2: undefined,
        city: 'Austin',
        country: 'US',
        state: 'TX',
        postalCode: '73301',
      },
      items: [{ title: 'Shirt', quantity: 2, unitPrice: '25.00' }],
      ip: '10.0.0.1',
    });
  });

  it('is undefined until the cart has an email and a billing or shipping address', () => {
    expect(buyerFromCart({ email: null, billing_address: address }, undefined)).toBeUndefined();
    expect(buyerFromCart({ email: 'a@b.c' }, undefined)).toBeUndefined();
  });

  it('a billing country that is not two letters is no address (never a pattern: "(a+)+" once froze the server)', () => {
    for (const country_code of ['(a+)+', '(', 'usa', '']) {
      const buyer = buyerFromCart(
        {
          email: 'a@example.com',
          billing_address: { ...address, country_code, province: `${'a'.repeat(40)}!` },
        },
        undefined,
      );
      // '(' made the old code throw (a RegExp built from the country): a 500 for the whole request.
      expect(buyer).toBeUndefined();
    }
  });
});

describe('buyerChangedSince', () => {
  const cart = {
    email: 'ada@example.com',
    currency_code: 'usd',
    billing_address: address,
    shipping_address: { ...address, address_2: null },
    items: [
      { title: 'Shirt', quantity: 2, unit_price: 25 },
      { title: 'Hat', quantity: 1, unit_price: 10 },
    ],
  };
  // As the session stored it: JSON (no undefined), keys in PostgreSQL's jsonb order, the shopper's ip.
  const stored: BuyerDetails = JSON.parse(JSON.stringify(buyerFromCart(cart, '10.0.0.1')));
  const reordered = Object.fromEntries(Object.entries(stored).reverse()) as typeof stored;

  it('the same details read again, in another key or line order, are no change', () => {
    expect(buyerChangedSince(reordered, cart)).toBe(false);
    expect(buyerChangedSince(stored, { ...cart, items: [...cart.items].reverse() })).toBe(false);
    expect(buyerChangedSince(stored, { ...cart, shipping_address: { ...address, address_2: '' } })).toBe(
      false,
    );
  });

  it("the shopper's address is not the cart's: a session stored with Node's IPv4-mapped form, or none, is no change", () => {
    expect(buyerChangedSince({ ...stored, ip: '::ffff:10.0.0.1' }, cart)).toBe(false);
    expect(buyerChangedSince({ ...stored, ip: undefined }, cart)).toBe(false);
  });

  it('another email, name, address or item is a change; so is a session that copied no buyer', () => {
    expect(buyerChangedSince(stored, { ...cart, email: 'mallory@example.com' })).toBe(true);
    expect(
      buyerChangedSince(stored, { ...cart, shipping_address: { ...address, address_1: '1 Drop Street' } }),
    ).toBe(true);
    expect(buyerChangedSince(stored, { ...cart, billing_address: { ...address, last_name: 'Byron' } })).toBe(
      true,
    );
    expect(buyerChangedSince(stored, { ...cart, items: [cart.items[0]!] })).toBe(true);
    expect(buyerChangedSince(undefined, cart)).toBe(true);
  });
});
