import { GatewayClient, verifyReturn } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox, submitSandboxPage, TEST_CARD_NUMBERS } from '../src/index.js';

let sandbox: Sandbox;
let client: GatewayClient;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  client = new GatewayClient({
    gatewayNo: sandbox.gatewayNo,
    signKey: sandbox.signKey,
    baseUrl: sandbox.url,
  });
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

async function hostedPage(orderNo: string): Promise<string> {
  const result = await client.checkout.createPayment({
    orderNo,
    orderAmount: '12.00',
    orderCurrency: 'USD',
    paymentMethod: 'Credit Card',
    returnUrl: 'https://shop.example/return?cart=1',
  });
  return result.redirectUrl!;
}

describe('submitSandboxPage', () => {
  it('pays a hosted page with a test card and gives the signed return', async () => {
    const { status, location } = await submitSandboxPage(
      await hostedPage('shopper-1'),
      'success',
      TEST_CARD_NUMBERS.success,
    );
    expect(status).toBe(303);
    const fields = verifyReturn({ query: new URL(location!).searchParams, signKey: sandbox.signKey });
    expect(fields).toMatchObject({ orderNo: 'shopper-1', orderStatus: 'success', orderAmount: '12.00' });
  });

  it('follows the card table: the decline card fails', async () => {
    const { location } = await submitSandboxPage(
      await hostedPage('shopper-2'),
      'success',
      TEST_CARD_NUMBERS.decline,
    );
    expect(new URL(location!).searchParams.get('orderStatus')).toBe('fail');
  });

  it('refuses a page that does not exist', async () => {
    await expect(submitSandboxPage(`${sandbox.url}/pay/checkout/T-unknown`, 'success')).rejects.toThrow(
      /answered 404/,
    );
  });
});
