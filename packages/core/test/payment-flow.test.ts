import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALREADY_PAID_REASON,
  DUPLICATE_ORDER_CODE,
  GatewayClient,
  GatewayValidationError,
  gatewayAcknowledged,
  type PaymentRequest,
  startPayment,
  storedAnswerOf,
} from '../src/index.js';
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

const savedCard = { kind: 'saved-card', customerPaymentMethodId: 'pm_1' } as const;
const paid = {
  orderNo: 'payses_1',
  tradeNo: 'T1',
  orderStatus: 'success',
  orderAmount: '10.00',
  orderCurrency: 'USD',
};

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

  it('a hosted or local payment answered with an unpublished code and no page is refused at once (nothing can be paid without one; found by review)', async () => {
    gateway.handle((_r, res, i) =>
      i < 2
        ? envelope(res, 'P0009', null, 'local method not enabled')
        : envelope(res, 'S0001', {
            orderNo: 'payses_1',
            orderStatus: 'pending',
            redirectUrl: 'https://gw/pay/2',
          }),
    );
    for (const source of [{ kind: 'hosted' }, { kind: 'local', method: 'KLARNA' }] as const) {
      expect(await startPayment(client, { ...base, source })).toMatchObject({
        status: 'failed',
        code: 'P0009',
      });
    }
    // A page named without a status may be payable there: held as unknown, never refused (found by review).
    gateway.handle((_r, res) =>
      envelope(res, 'S0001', { orderNo: 'payses_1', redirectUrl: 'https://gw/pay/3' }),
    );
    expect(
      await startPayment(client, { ...base, source: { kind: 'local', method: 'KLARNA' } }),
    ).toMatchObject({
      status: 'unknown',
      code: 'S0001',
    });
    gateway.handle((_r, res) =>
      envelope(res, 'S0001', {
        orderNo: 'payses_1',
        orderStatus: 'pending',
        redirectUrl: 'https://gw/pay/2',
      }),
    );
    // With a page and a status in its data, the page is followed whatever the code.
    expect(await startPayment(client, { ...base, source: { kind: 'hosted' } })).toMatchObject({
      status: 'redirect',
      redirectUrl: 'https://gw/pay/2',
    });
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

  it('reads a charge answered with an all-zeros code, a number too, as its data says', async () => {
    const codes: (string | number)[] = ['0', 0, '000', '0000'];
    gateway.handle((_r, res, i) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: codes[i], message: 'Success', data: paid }));
    });
    for (const code of codes) {
      expect(await startPayment(client, { ...base, source: savedCard }), String(code)).toMatchObject({
        status: 'succeeded',
        tradeNo: 'T1',
      });
    }
  });

  it('never fails a card charge on a code that is not a documented refusal; a hosted or local payment without a page is refused', async () => {
    const answers: [string, unknown][] = [
      ['S0001', null],
      ['S0001', { ...paid, orderStatus: 'fail', orderInfo: 'Declined' }],
      ['P0003', null],
      ['L0004', null],
      ['X1234', { ...paid, orderStatus: 'maybe' }],
    ];
    gateway.handle((_r, res, i) =>
      envelope(res, answers[i % answers.length]![0], answers[i % answers.length]![1]),
    );
    const sources: PaymentRequest['source'][] = [
      savedCard,
      { kind: 'hosted' },
      { kind: 'local', method: 'klarna' },
    ];
    for (const source of sources) {
      for (const [code] of answers) {
        const outcome = await startPayment(client, { ...base, source });
        // A card charge may have taken the money; a page-making call answered without a page made
        // nothing the shopper could pay on.
        const status = source.kind === 'saved-card' ? 'unknown' : 'failed';
        expect(outcome, `${source.kind} ${code}`).toMatchObject({ status, code });
      }
    }
    expect(gateway.requests).toHaveLength(15);
  });

  it("reads an unpublished code's data when it says success or pending (a redirect too)", async () => {
    gateway.handle((_r, res, i) =>
      envelope(
        res,
        i === 0 ? 'S0001' : 'E0042',
        i === 0
          ? paid
          : i === 1
            ? { orderNo: 'payses_1', orderStatus: 'pending' }
            : { orderNo: 'payses_1', orderStatus: 'pending', redirectUrl: 'https://gw/3ds/1' },
      ),
    );
    expect(await startPayment(client, { ...base, source: savedCard })).toMatchObject({ status: 'succeeded' });
    expect(await startPayment(client, { ...base, source: savedCard })).toMatchObject({ status: 'pending' });
    expect(await startPayment(client, { ...base, source: savedCard })).toMatchObject({
      status: 'redirect',
      redirectUrl: 'https://gw/3ds/1',
    });
  });

  it('fails a charge on every documented refusal before processing, with the code', async () => {
    const codes = ['L0001', 'L0002', 'L0003', 'L0005', 'P0001', 'P0002'];
    gateway.handle((_r, res, i) => envelope(res, codes[i]!, null, 'refused'));
    for (const code of codes) {
      expect(await startPayment(client, { ...base, source: savedCard })).toMatchObject({
        status: 'failed',
        code,
      });
    }
  });

  it('already paid: a fail whose orderInfo starts with I0061 is the same unknown outcome as the I0061 code', async () => {
    gateway.handle((_r, res, i) =>
      i === 0
        ? envelope(res, 'I0061', null, 'Duplicate Order')
        : envelope(res, '00000', {
            orderNo: 'payses_1',
            orderStatus: 'fail',
            orderInfo: i === 1 ? 'I0061:Duplicate Order' : 'I0061_Duplicate Order',
          }),
    );
    const byCode = await startPayment(client, { ...base, source: savedCard });
    expect(byCode).toEqual({
      status: 'unknown',
      orderNo: 'payses_1',
      reason: ALREADY_PAID_REASON,
      code: DUPLICATE_ORDER_CODE,
    });
    for (const source of [savedCard, { kind: 'hosted' } as const]) {
      const byInfo = await startPayment(client, { ...base, source });
      expect(byInfo).toMatchObject(byCode);
      expect(gatewayAcknowledged(storedAnswerOf(byInfo))).toBe(true);
    }
  });

  it('refuses an unknown local method before sending', async () => {
    await expect(
      startPayment(client, { ...base, source: { kind: 'local', method: 'cash' } }),
    ).rejects.toBeInstanceOf(GatewayValidationError);
    expect(gateway.requests).toHaveLength(0);
  });
});

describe('startPayment: an answer about another payment than was sent (found by review)', () => {
  const card = { ...base, source: { kind: 'saved-card', customerPaymentMethodId: 'pm_1' } } as const;

  it('attack: a success for another amount, currency or orderNo, or a success naming no amount, is unknown: never captured, never freed', async () => {
    const answers = [
      { ...paid, orderAmount: '1.00' },
      { ...paid, orderCurrency: 'EUR' },
      { ...paid, orderNo: 'payses_OTHER' },
      { ...paid, orderAmount: undefined, orderCurrency: undefined },
      { orderNo: 'payses_OTHER', orderStatus: 'fail', orderInfo: 'Card declined' },
      { ...paid, orderStatus: 'pending', orderAmount: '99.00', redirectUrl: 'https://gw/3ds/1' },
    ];
    gateway.handle((_r, res, i) => envelope(res, '00000', answers[i]!));
    for (const answer of answers) {
      const outcome = await startPayment(client, card);
      expect(outcome, JSON.stringify(answer)).toMatchObject({ status: 'unknown', orderNo: 'payses_1' });
      expect((outcome as { reason?: string }).reason).toMatch(/the gateway's answer/);
    }
  });

  it('the same amount written otherwise, or a lower-case currency, is this payment', async () => {
    gateway.handle((_r, res, i) =>
      envelope(res, '00000', i === 0 ? { ...paid, orderAmount: '10' } : { ...paid, orderCurrency: 'usd' }),
    );
    expect(await startPayment(client, card)).toMatchObject({ status: 'succeeded', amount: '10' });
    expect(await startPayment(client, card)).toMatchObject({ status: 'succeeded' });
  });
});
