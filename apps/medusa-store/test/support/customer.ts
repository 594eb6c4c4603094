import { uniqueEmail } from './email';
import { api, expectOk } from './store-api';

/** Registers a new customer and returns a store bearer token. */
export async function registerCustomer(): Promise<{ token: string; email: string; customerId: string }> {
  const email = uniqueEmail('shopper');
  const password = 'secret-password';
  const { token: registration } = await expectOk(
    api('POST', '/auth/customer/emailpass/register', { body: { email, password } }),
  );
  const { customer } = await expectOk(
    api('POST', '/store/customers', {
      token: registration,
      body: { email, first_name: 'Ada', last_name: 'Lovelace' },
    }),
  );
  const { token } = await expectOk(api('POST', '/auth/customer/emailpass', { body: { email, password } }));
  return { token, email, customerId: customer.id };
}

/** The body of POST /store/gatewaykit/payment-methods for card `cardNo` (a test card). */
export function savedCardBody(cardNo: string) {
  return {
    card: {
      cardNo,
      cardExpireMonth: '12',
      cardExpireYear: String(new Date().getFullYear() + 2),
      cardSecurityCode: '123',
    },
    billingDetail: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '5125550100',
      address: {
        line1: '1 Test Street',
        city: 'Austin',
        country: 'US',
        state: 'TX',
        postalCode: '73301',
      },
    },
  };
}

/** Saves a card through the plugin's store route (the test app runs with allowRawCardData). */
export async function saveCard(
  token: string,
  cardNo: string,
): Promise<{ id: string; data: { brand?: string; last4?: string } }> {
  const { payment_method } = await expectOk(
    api('POST', '/store/gatewaykit/payment-methods', { token, body: savedCardBody(cardNo) }),
  );
  return payment_method;
}
