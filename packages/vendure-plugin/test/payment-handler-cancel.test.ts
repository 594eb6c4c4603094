import { RequestContext } from '@vendure/core';
import { describe, expect, it } from 'vitest';
import { gatewaykitPaymentHandler, NO_VOID } from '../src/config/payment-handler';

/** The handler's cancelPayment as Vendure calls it (its args as the stored name/value list). */
const cancel = (state: string) =>
  gatewaykitPaymentHandler.cancelPayment(
    RequestContext.empty(),
    { id: 10, code: 'ABC123' } as never,
    { id: 7, state, amount: 1940, transactionId: 'T1' } as never,
    [{ name: 'gatewayNo', value: '12345678' }] as never,
    {} as never,
  );

describe("the handler's cancelPayment", () => {
  it('keeps a Settled payment Settled: the money is taken and the gateway has no void', async () => {
    // Vendure moves the payment to `state` and answers CancelPaymentError with the message.
    expect(await cancel('Settled')).toEqual({ success: false, state: 'Settled', errorMessage: NO_VOID });
  });

  it('cancels a payment that took no money (a decline)', async () => {
    expect(await cancel('Declined')).toEqual({ success: true });
  });
});
