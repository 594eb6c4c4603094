import { describe, expect, it } from 'vitest';
import { buyerFromCart } from '../src/lib/buyer-from-cart';

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
