import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayValidationError, type PaymentRequest, startPayment } from '../src/index.js';
import { envelope, startTestGateway, type TestGateway } from './support/http-gateway.js';

const base: Omit<PaymentRequest, 'source'> = {
  orderNo: 'payses_1',
  amount: '10.00',
  currency: 'usd',
  customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  billingAddress: { line1: '1 Main Street', city: 'Austin', country: 'us', state: 'TX', postalCode: '73301' },
  shippingAddress: { line1: '1 Main Street', city: 'Austin', country: 'US', state: 'TX' },
  items: Array.from({ length: 12 }, (_, i) => ({ title: `Item ${i}`, quantity: 1, unitPrice: '1.00' })),
  customerIp: '127.0.0.1',
  webSite: 'shop.example',
  returnUrl: 'https://shop.example/return',
  callbackUrl: 'https://shop.example/callback',
};

let gateway: TestGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({
    gatewayNo: '12345678',
    signKey: 'k',
    baseUrl: gateway.url,
    retryBaseDelayMs: 5,
  });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

const sentBody = (index = 0) => JSON.parse(gateway.requests[index]!.body);

describe('startPayment', () => {
  it('charges a saved card through confirmCharge and reads success', async () => {
    gateway.handle((_r, res) =>
      envelope(res, '00000', {
        orderNo: 'payses_1',
        tradeNo: 'T1',
        orderStatus: 'success',
        orderAmount: '10.00',
        orderCurrency: 'USD',
        maskCardNo: '424242***4242',
      }),
    );
    const outcome = await startPayment(client, {
      ...base,
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_1', customerId: 'cus_1' },
    });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      tradeNo: 'T1',
      maskCardNo: '424242***4242',
      amount: '10.00',
    });
    expect(gateway.requests[0]!.url).toBe('/V2022-03/confirmCharge');
    const body = sentBody();
    expect(body).toMatchObject({
      customerPaymentMethodId: 'pm_1',
      customerId: 'cus_1',
      orderCurrency: 'USD',
      callbackUrl: base.callbackUrl,
    });
    expect(body.customerPaymentMethod).toBeUndefined();
    expect(body.goodsDetails).toHaveLength(10);
  });

  it('sends raw card data with billing details and reads a 3DS redirect', async () => {
    gateway.handle((_r, res) =>
      envelope(res, '00000', {
        orderNo: 'payses_1',
        orderStatus: 'pending',
        redirectUrl: 'https://gw/3ds/1',
      }),
    );
    const card = {
      cardNo: '4000002500003155',
      cardExpireMonth: '12',
      cardExpireYear: '2030',
      cardSecurityCode: '123',
    };
    const outcome = await startPayment(client, { ...base, source: { kind: 'card-data', card } });
    expect(outcome).toEqual(expect.objectContaining({ status: 'redirect', redirectUrl: 'https://gw/3ds/1' }));
    expect(sentBody().customerPaymentMethod.billingDetail.address).toMatchObject({
      country: 'US',
      state: 'TX',
    });
    expect(sentBody().customerPaymentMethod.billingDetail.phone).toBe('00');
  });

  it('asks the hosted checkout for cards and a local payment for the canonical method name', async () => {
    gateway.handle((_r, res) =>
      envelope(res, '00000', {
        orderNo: 'payses_1',
        tradeNo: 'P1',
        orderStatus: 'pending',
        redirectUrl: 'https://gw/pay/1',
      }),
    );
    expect(await startPayment(client, { ...base, source: { kind: 'hosted' } })).toMatchObject({
      status: 'redirect',
      tradeNo: 'P1',
    });
    expect(
      await startPayment(client, { ...base, source: { kind: 'local', method: 'KLARNA' } }),
    ).toMatchObject({
      status: 'redirect',
    });
    expect(gateway.requests.map((r) => r.url)).toEqual([
      '/V2022-03/checkout/payment',
      '/V2022-03/local_payment',
    ]);
    expect(sentBody(0)).toMatchObject({
      paymentMethod: 'Credit Card',
      billingAddress: { country: 'US', zip: '73301' },
    });
    expect(sentBody(1).paymentMethod).toBe('klarna');
  });

  it('reads a decline as failed with the gateway reason, and pending without redirect as pending', async () => {
    gateway.handle((_r, res, i) =>
      envelope(
        res,
        '00000',
        i === 0
          ? { orderNo: 'payses_1', orderStatus: 'fail', orderInfo: 'Card declined' }
          : { orderNo: 'payses_1', orderStatus: 'pending' },
      ),
    );
    const mode = { kind: 'saved-card', customerPaymentMethodId: 'pm_1' } as const;
    expect(await startPayment(client, { ...base, source: mode })).toMatchObject({
      status: 'failed',
      reason: 'Card declined',
    });
    expect(await startPayment(client, { ...base, source: mode })).toMatchObject({ status: 'pending' });
  });

  it('turns a lost answer into unknown (never failed) and a refusal into failed', async () => {
    gateway.handle((_r, res, i) => {
      if (i === 0) res.socket?.destroy();
      else if (i === 1) envelope(res, 'I0061', null, 'Duplicate Order');
      else envelope(res, 'P0001', null, 'orderNo is invalid');
    });
    const mode = { kind: 'saved-card', customerPaymentMethodId: 'pm_1' } as const;
    expect(await startPayment(client, { ...base, source: mode })).toMatchObject({ status: 'unknown' });
    expect(await startPayment(client, { ...base, source: mode })).toMatchObject({ status: 'unknown' });
    expect(await startPayment(client, { ...base, source: mode })).toMatchObject({
      status: 'failed',
      code: 'P0001',
    });
    expect(gateway.requests).toHaveLength(3);
  });

  it('refuses an unknown local method before sending', async () => {
    await expect(
      startPayment(client, { ...base, source: { kind: 'local', method: 'cash' } }),
    ).rejects.toBeInstanceOf(GatewayValidationError);
    expect(gateway.requests).toHaveLength(0);
  });
});
