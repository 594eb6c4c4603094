/** Core's GatewayClient against a running sandbox: every operation, every test card, duplicate orders. */
import { GatewayApiError, GatewayBadRequestError, GatewayClient, isGatewayError } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { billingDetail, card, chargeBody, hostedBody, orderNo } from './helpers.js';

let sb: Sandbox;
let client: GatewayClient;
beforeAll(async () => {
  // A long pending delay (1 virtual hour = 3.6 s real) so only the clock advance settles the pending card.
  sb = await startSandbox({ port: 0, pendingDelayMs: 3_600_000 });
  client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('customers', () => {
  it('creates, retrieves, lists with paging and deletes', async () => {
    const created = await client.customers.create({
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expect(created.customerId).toMatch(/^cus_\d{19}$/);
    expect(created.created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const second = await client.customers.create({ email: 'alan@example.com' });
    expect(second.customerId).not.toBe(created.customerId);

    const fetched = await client.customers.retrieve(created.customerId);
    expect(fetched).toMatchObject({
      customerId: created.customerId,
      email: 'grace@example.com',
      firstName: 'Grace',
    });

    const total = sb.state().customers.length;
    const page = await client.customers.list({ pageIndex: 1, pageSize: 1 });
    expect(page).toMatchObject({ pageIndex: 1, pageSize: 1, total });
    expect(page.list).toHaveLength(1);
    const last = await client.customers.list({ pageIndex: total, pageSize: 1 });
    expect(last.list[0]?.customerId).toBe(second.customerId);
    const beyond = await client.customers.list({ pageIndex: total + 1, pageSize: 1 });
    expect(beyond.list).toHaveLength(0);

    expect(await client.customers.delete(created.customerId)).toBeNull();
    const gone = await client.customers.retrieve(created.customerId).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(GatewayBadRequestError);
    expect((gone as GatewayBadRequestError).code).toBe('P0002');
  });
});

describe('payment methods', () => {
  it('creates (brand, last4 from the card), updates, retrieves, lists, attaches and detaches', async () => {
    const customer = await client.customers.create({ email: 'pm@example.com' });
    const method = await client.paymentMethods.create({
      billingDetail,
      card: card('5555555555554444'),
      customerId: customer.customerId,
    });
    expect(method.customerPaymentMethodId).toMatch(/^pm_\d{19}$/);
    expect(method.card).toMatchObject({ brand: 'MasterCard', last4: '4444' });

    const updated = await client.paymentMethods.update({
      customerPaymentMethodId: method.customerPaymentMethodId,
      billingDetail: { ...billingDetail, firstName: 'Augusta' },
    });
    expect(updated.billingDetail?.firstName).toBe('Augusta');
    expect(
      (await client.paymentMethods.retrieve(method.customerPaymentMethodId)).billingDetail?.firstName,
    ).toBe('Augusta');

    const listed = await client.paymentMethods.list(customer.customerId);
    expect(listed.map((entry) => entry.customerPaymentMethodId)).toEqual([method.customerPaymentMethodId]);

    const loose = await client.paymentMethods.create({ billingDetail, card: card('4242424242424242') });
    expect(loose.card).toMatchObject({ brand: 'Visa', last4: '4242' });
    const attached = await client.paymentMethods.attach(loose.customerPaymentMethodId, customer.customerId);
    expect(attached?.customerPaymentMethodId).toBe(loose.customerPaymentMethodId);
    expect(await client.paymentMethods.list(customer.customerId)).toHaveLength(2);

    await client.paymentMethods.detach(method.customerPaymentMethodId);
    const after = await client.paymentMethods.list(customer.customerId);
    expect(after.map((entry) => entry.customerPaymentMethodId)).toEqual([loose.customerPaymentMethodId]);
  });

  it('never keeps the card number or security code', async () => {
    await client.paymentMethods.create({
      billingDetail,
      card: { ...card('4000000000009995'), cardSecurityCode: '737' },
    });
    const dump = JSON.stringify(sb.state()) + JSON.stringify(sb.requests());
    expect(dump).not.toContain('4000000000009995');
    expect(dump).not.toContain('"737"');
    expect(dump).toContain('400000***9995');
  });

  it('refuses unknown ids with P0002', async () => {
    const error = await client.paymentMethods
      .retrieve('pm_0000000000000000000')
      .catch((caught: unknown) => caught);
    expect(isGatewayError(error) && error.code).toBe('P0002');
  });
});

describe('confirmCharge test cards (raw card data and stored methods behave the same)', () => {
  async function storedMethod(cardNo: string) {
    const method = await client.paymentMethods.create({ billingDetail, card: card(cardNo) });
    return method.customerPaymentMethodId;
  }

  for (const stored of [false, true]) {
    const label = stored ? 'stored method' : 'raw card';
    const charge = async (cardNo: string) => {
      const body = chargeBody({ cardNo });
      if (!stored) return client.charges.confirm(body);
      const { customerPaymentMethod: _, ...rest } = body;
      return client.charges.confirm({ ...rest, customerPaymentMethodId: await storedMethod(cardNo) });
    };

    it(`${label}: 4242424242424242 succeeds with a masked card and a tradeNo`, async () => {
      const result = await charge('4242424242424242');
      expect(result).toMatchObject({
        orderStatus: 'success',
        maskCardNo: '424242***4242',
        orderAmount: '10.50',
      });
      expect(result.tradeNo?.length).toBeLessThanOrEqual(32);
      expect(result.redirectUrl ?? '').toBe('');
    });

    it(`${label}: 4000000000009995 is declined`, async () => {
      const result = await charge('4000000000009995');
      expect(result).toMatchObject({
        orderStatus: 'fail',
        orderInfo: 'Card declined',
        maskCardNo: '400000***9995',
      });
    });

    it(`${label}: 4000002500003155 asks for a 3DS challenge`, async () => {
      const result = await charge('4000002500003155');
      expect(result.orderStatus).toBe('pending');
      expect(result.redirectUrl).toBe(`${sb.url}/pay/3ds/${result.tradeNo}`);
    });

    it(`${label}: 4000000000000077 stays pending without redirect, then succeeds`, async () => {
      const result = await charge('4000000000000077');
      expect(result.orderStatus).toBe('pending');
      expect(result.redirectUrl ?? '').toBe('');
      const tradeNo = result.tradeNo ?? '';
      expect(sb.order(tradeNo)?.orderStatus).toBe('pending');
      sb.clock.advance(3_600_000);
      expect(sb.order(tradeNo)?.orderStatus).toBe('success');
      sb.clock.setOffset(0);
    });

    it(`${label}: 4000000000003220 asks for a challenge that cannot pass`, async () => {
      const result = await charge('4000000000003220');
      expect(result.orderStatus).toBe('pending');
      expect(result.redirectUrl).toContain('/pay/3ds/');
    });
  }

  it('keeps a unique tradeNo per charge', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => client.charges.confirm(chargeBody())));
    expect(new Set(results.map((result) => result.tradeNo)).size).toBe(20);
  });

  it('refuses a second charge of an orderNo that already succeeded with I0061', async () => {
    const body = chargeBody({ cardNo: '4000000000009995' });
    expect((await client.charges.confirm(body)).orderStatus).toBe('fail');
    // A failed attempt does not block a retry with another card.
    const paid = await client.charges.confirm({
      ...body,
      customerPaymentMethod: chargeBody().customerPaymentMethod,
    });
    expect(paid.orderStatus).toBe('success');
    const error = await client.charges.confirm(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayApiError);
    expect((error as GatewayApiError).code).toBe('I0061');
    expect((error as GatewayApiError).message).toContain(`orderNo ${body.orderNo} was already paid`);
    const hosted = await client.checkout
      .createPayment(hostedBody({ orderNo: body.orderNo }))
      .catch((caught: unknown) => caught);
    expect((hosted as GatewayApiError).code).toBe('I0061');
  });

  it('refuses a stored method that belongs to another customer', async () => {
    const owner = await client.customers.create({ email: 'o@example.com' });
    const other = await client.customers.create({ email: 'x@example.com' });
    const method = await client.paymentMethods.create({
      billingDetail,
      card: card('4242424242424242'),
      customerId: owner.customerId,
    });
    const { customerPaymentMethod: _, ...rest } = chargeBody();
    const error = await client.charges
      .confirm({
        ...rest,
        customerId: other.customerId,
        customerPaymentMethodId: method.customerPaymentMethodId,
      })
      .catch((caught: unknown) => caught);
    expect(isGatewayError(error) && error.code).toBe('P0002');
  });
});

describe('checkout and local payment', () => {
  it('checkout/payment answers pending with the hosted card page', async () => {
    const result = await client.checkout.createPayment(hostedBody({ orderNo: orderNo('C') }));
    expect(result).toMatchObject({ orderStatus: 'pending', orderAmount: '25.00', orderCurrency: 'EUR' });
    expect(result.redirectUrl).toBe(`${sb.url}/pay/checkout/${result.tradeNo}`);
  });

  it('local_payment accepts the 14 method names in any case and points to the local page', async () => {
    const { LOCAL_PAYMENT_METHODS } = await import('@gatewaykit/core');
    for (const name of LOCAL_PAYMENT_METHODS) {
      const result = await client.localPayments.create(hostedBody({ paymentMethod: name.toUpperCase() }));
      expect(result.orderStatus).toBe('pending');
      expect(result.redirectUrl).toContain('/pay/local/');
      expect(sb.order(result.tradeNo ?? '')?.paymentMethod).toBe(name);
    }
  });
});
