/**
 * The card element's endpoint `POST /V2022-03/element/payment_methods` (docs/card-element.md) and what a
 * charge with its methods does: honest paths beside the attacks (expired and foreign tokens, another
 * merchant's customer, garbage, a card number that must never come back out of the sandbox).
 */
import { GatewayClient } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElementPaymentMethod, type Sandbox, startSandbox, submitSandboxPage } from '../src/index.js';
import { billingDetail, orderNo } from './helpers.js';

const merchantA = { gatewayNo: '11110001', signKey: 'merchant-a-key' };
const merchantB = { gatewayNo: '22220002', signKey: 'merchant-b-key' };

let sb: Sandbox;
let clientA: GatewayClient;
let clientB: GatewayClient;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, merchants: [merchantA, merchantB] });
  clientA = new GatewayClient({ ...merchantA, baseUrl: sb.url });
  clientB = new GatewayClient({ ...merchantB, baseUrl: sb.url });
});
afterAll(async () => {
  await clientA.close();
  await clientB.close();
  await sb.close();
});

const year = String(new Date().getUTCFullYear() + 3);
const card = (cardNo: string, cardSecurityCode = '739') => ({
  cardNo,
  cardExpireMonth: '08',
  cardExpireYear: year,
  cardSecurityCode,
});

function charge(client: GatewayClient, customerPaymentMethodId: string, customerId?: string) {
  return client.charges.confirm({
    orderNo: orderNo('E'),
    orderAmount: '12.00',
    orderCurrency: 'USD',
    customerIp: '203.0.113.9',
    returnUrl: 'https://shop.example/return',
    webSite: 'https://shop.example',
    customerPaymentMethodId,
    ...(customerId ? { customerId } : {}),
  });
}

/** The raw call, for what the helper cannot send. */
async function post(body: string, headers: Record<string, string> = {}, method = 'POST') {
  const response = await fetch(`${sb.url}/V2022-03/element/payment_methods`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'GET' ? undefined : body,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  return {
    text: await response.clone().text(),
    json: (await response.json()) as { code: string; message: string; data?: unknown },
  };
}

const bodyOf = (sessionToken: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ sessionToken, billingDetail, card: card('4242424242424242'), customerId: '', ...fields });

describe('creating a method with a session token', () => {
  it("answers code 0 with the id, brand and last4; the method is the token's merchant's and unattached", async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    const answer = await post(bodyOf(sessionToken));
    expect(answer.json).toEqual({
      code: '0',
      message: 'success',
      data: {
        customerPaymentMethodId: expect.stringMatching(/^pm_\d{19}$/),
        card: { brand: 'Visa', last4: '4242' },
      },
    });
    const id = (answer.json.data as { customerPaymentMethodId: string }).customerPaymentMethodId;
    const method = await clientA.paymentMethods.retrieve(id);
    expect(method).toMatchObject({ customerPaymentMethodId: id, card: { brand: 'Visa', last4: '4242' } });
    expect(method.customerId ?? null).toBeNull();
    // The token may be used again while it lives (a shopper retrying after a typo).
    await expect(
      createElementPaymentMethod(sb.url, sessionToken, { card: card('4242424242424242') }),
    ).resolves.toEqual({
      customerPaymentMethodId: expect.stringMatching(/^pm_/),
    });
  });

  it('attaches the method to a customerId of the same merchant', async () => {
    const customer = await clientA.customers.create({ email: 'el@example.com' });
    const { sessionToken } = await clientA.sessionTokens.create();
    const { customerPaymentMethodId } = await createElementPaymentMethod(sb.url, sessionToken, {
      card: card('4242424242424242'),
      customerId: customer.customerId,
    });
    const listed = await clientA.paymentMethods.list(customer.customerId);
    expect(listed.map((method) => method.customerPaymentMethodId)).toEqual([customerPaymentMethodId]);
  });

  it('records the test behaviours: success charges, decline fails, 3-D Secure redirects', async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    const make = (cardNo: string) => createElementPaymentMethod(sb.url, sessionToken, { card: card(cardNo) });
    const success = await charge(clientA, (await make('4242424242424242')).customerPaymentMethodId);
    expect(success).toMatchObject({ orderStatus: 'success', redirectUrl: '', maskCardNo: '424242***4242' });
    const decline = await charge(clientA, (await make('4000000000009995')).customerPaymentMethodId);
    expect(decline).toMatchObject({ orderStatus: 'fail', redirectUrl: '' });
    const challenge = await charge(clientA, (await make('4000002500003155')).customerPaymentMethodId);
    expect(challenge.orderStatus).toBe('pending');
    expect(challenge.redirectUrl).toContain('/pay/3ds/');
  });
});

describe('tokens', () => {
  it('expire 30 minutes later on the sandbox clock', async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    sb.clock.advance(29 * 60_000);
    try {
      await expect(
        createElementPaymentMethod(sb.url, sessionToken, { card: card('4242424242424242') }),
      ).resolves.toBeTruthy();
      sb.clock.advance(60_000);
      const before = sb.state().paymentMethods.length;
      const answer = await post(bodyOf(sessionToken));
      expect(answer.json).toEqual({
        code: 'P0002',
        message: 'param is null or incorrect: sessionToken is unknown or expired',
      });
      await expect(
        createElementPaymentMethod(sb.url, sessionToken, { card: card('4242424242424242') }),
      ).rejects.toThrow(/sessionToken is unknown or expired/);
      expect(sb.state().paymentMethods.length).toBe(before);
    } finally {
      sb.clock.setOffset(0);
    }
  });

  it('refuses a made-up, missing or malformed token', async () => {
    expect((await post(bodyOf('st_madeUpTokenThatWasNeverIssued0000'))).json.code).toBe('P0002');
    expect((await post(JSON.stringify({ billingDetail, card: card('4242424242424242') }))).json).toEqual({
      code: 'P0002',
      message: 'param is null or incorrect: sessionToken is missing',
    });
    expect((await post(bodyOf(12345 as unknown as string))).json.code).toBe('P0002');
    expect((await post(bodyOf('x'.repeat(600)))).json.code).toBe('P0002');
  });

  it("of merchant B makes B's method: merchant A can neither read nor charge it", async () => {
    const { sessionToken } = await clientB.sessionTokens.create();
    const { customerPaymentMethodId } = await createElementPaymentMethod(sb.url, sessionToken, {
      card: card('4242424242424242'),
    });
    await expect(clientA.paymentMethods.retrieve(customerPaymentMethodId)).rejects.toMatchObject({
      code: 'P0002',
    });
    await expect(charge(clientA, customerPaymentMethodId)).rejects.toMatchObject({ code: 'P0002' });
    expect(
      sb.state().orders.filter((order) => order.customerPaymentMethodId === customerPaymentMethodId),
    ).toEqual([]);
    await expect(charge(clientB, customerPaymentMethodId)).resolves.toMatchObject({ orderStatus: 'success' });
  });
});

describe('refusals', () => {
  it("refuses another merchant's customerId and stores nothing", async () => {
    const foreign = await clientB.customers.create({ email: 'b@example.com' });
    const { sessionToken } = await clientA.sessionTokens.create();
    const before = sb.state().paymentMethods.length;
    const answer = await post(bodyOf(sessionToken, { customerId: foreign.customerId }));
    expect(answer.json.code).toBe('P0002');
    expect(answer.json.message).toContain('customerId');
    expect(sb.state().paymentMethods.length).toBe(before);
  });

  it('refuses bad card fields, naming the field and never the value', async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    const cases: [Record<string, unknown>, string][] = [
      [{ card: { ...card('4242424242424242'), cardNo: '4242 4242' } }, 'card.cardNo'],
      [{ card: { ...card('4242424242424242'), cardExpireMonth: '13' } }, 'card.cardExpireMonth'],
      [{ card: { ...card('4242424242424242'), cardExpireYear: '26' } }, 'card.cardExpireYear'],
      [{ card: { ...card('4242424242424242'), cardExpireMonth: '01', cardExpireYear: '2020' } }, 'expired'],
      [{ card: { ...card('4242424242424242'), cardSecurityCode: '7' } }, 'card.cardSecurityCode'],
      [{ card: undefined }, 'card'],
      [{ billingDetail: undefined }, 'billingDetail'],
      [{ billingDetail: { ...billingDetail, email: '' } }, 'billingDetail.email'],
      [{ customerId: 42 }, 'customerId'],
    ];
    const before = sb.state().paymentMethods.length;
    for (const [fields, named] of cases) {
      const answer = await post(bodyOf(sessionToken, fields));
      expect(answer.json.code, named).toBe('P0001');
      expect(answer.json.message, named).toContain(named);
      expect(answer.text).not.toContain('4242424242424242');
      expect(answer.text).not.toContain('739');
    }
    expect(sb.state().paymentMethods.length).toBe(before);
  });

  it('refuses garbage, another method, a form post and a cross-site browser call', async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    expect((await post('{not json 4242424242424242')).json).toEqual({
      code: 'P0001',
      message: 'request param error: body: not valid JSON',
    });
    expect((await post('[1,2]')).json.code).toBe('P0001');
    expect((await post('null')).json.code).toBe('P0001');
    expect((await post('')).json.code).toBe('P0001');
    expect((await post(bodyOf(sessionToken), { 'content-type': 'text/plain' })).json.message).toContain(
      'content-type must be application/json',
    );
    expect((await post(bodyOf(sessionToken), { 'sec-fetch-site': 'cross-site' })).json.message).toContain(
      'only the card element page',
    );
    expect((await post(bodyOf(sessionToken), { 'sec-fetch-site': 'same-site' })).json.code).toBe('P0001');
    expect((await post('', {}, 'GET')).json.code).toBe('L0002');
    expect((await post(bodyOf(sessionToken), { 'sec-fetch-site': 'same-origin' })).json.code).toBe('0');
  });

  it('never lets a card number or security code out: not in answers, the request log or the state', async () => {
    const { sessionToken } = await clientA.sessionTokens.create();
    const secret = '5555555555554444';
    await post(bodyOf(sessionToken, { card: card(secret, '9183') }));
    await post(bodyOf(sessionToken, { card: { ...card(secret, '9183'), cardExpireMonth: '00' } }));
    await post(`{"sessionToken":"${sessionToken}","card":{"cardNo":"${secret}","cardSecurityCode":"9183"`);
    await post(bodyOf('st_unknown', { card: card(secret, '9183') }));
    const everything = JSON.stringify([sb.requests(), sb.state()]);
    expect(everything).not.toContain(secret);
    // As a whole value, also inside a logged body (escaped quotes): a bare '9183' can occur by chance
    // inside ids and times.
    expect(everything).not.toContain('"9183"');
    expect(everything).not.toContain('\\"9183\\"');
    expect(
      sb.requests().filter((entry) => entry.operation === 'elementPaymentMethod').length,
    ).toBeGreaterThanOrEqual(4);
  });
});

describe('charging an unattached element method with a customerId', () => {
  async function elementMethod(cardNo: string): Promise<string> {
    const { sessionToken } = await clientA.sessionTokens.create();
    return (await createElementPaymentMethod(sb.url, sessionToken, { card: card(cardNo) }))
      .customerPaymentMethodId;
  }

  /** Whom the sandbox keeps the method attached to (its answers, as documented, do not say). */
  const ownerOf = (id: string) =>
    sb.state().paymentMethods.find((method) => method.customerPaymentMethodId === id)?.customerId ?? null;

  it('binds the method to the customer on success', async () => {
    const customer = await clientA.customers.create({ email: 'bind@example.com' });
    const id = await elementMethod('4242424242424242');
    await expect(charge(clientA, id, customer.customerId)).resolves.toMatchObject({ orderStatus: 'success' });
    expect(ownerOf(id)).toBe(customer.customerId);
    // Listed among that customer's cards, and no answer names the owner.
    const listed = await clientA.paymentMethods.list(customer.customerId);
    expect(listed.map((method) => method.customerPaymentMethodId)).toEqual([id]);
    expect((await clientA.paymentMethods.retrieve(id)).customerId).toBeUndefined();
    // Now it is that customer's: another customer of the same merchant is refused.
    const other = await clientA.customers.create({ email: 'other@example.com' });
    await expect(charge(clientA, id, other.customerId)).rejects.toMatchObject({ code: 'P0002' });
  });

  it('does not bind it when the charge fails', async () => {
    const customer = await clientA.customers.create({ email: 'nobind@example.com' });
    const id = await elementMethod('4000000000009995');
    await expect(charge(clientA, id, customer.customerId)).resolves.toMatchObject({ orderStatus: 'fail' });
    expect(ownerOf(id)).toBeNull();
  });

  it('binds it when the 3-D Secure challenge succeeds, not before', async () => {
    const customer = await clientA.customers.create({ email: '3ds@example.com' });
    const id = await elementMethod('4000002500003155');
    const pending = await charge(clientA, id, customer.customerId);
    expect(ownerOf(id)).toBeNull();
    await submitSandboxPage(pending.redirectUrl ?? '', 'success');
    expect(ownerOf(id)).toBe(customer.customerId);
  });

  it("refuses a customerId that is not this merchant's before charging", async () => {
    const foreign = await clientB.customers.create({ email: 'fb@example.com' });
    const id = await elementMethod('4242424242424242');
    const orders = sb.state().orders.length;
    await expect(charge(clientA, id, foreign.customerId)).rejects.toMatchObject({ code: 'P0002' });
    expect(sb.state().orders.length).toBe(orders);
    expect(ownerOf(id)).toBeNull();
  });
});
