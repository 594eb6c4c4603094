import { defaultOrderProcess, type OrderProcess, type VendureConfig } from '@vendure/core';

/**
 * Tests only (GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY): another plugin's order process whose hook throws
 * once an order shipped to `city` is PaymentSettled, after Vendure has saved the payment and the state
 * in the same transaction. Never configured in a real store.
 */
function failingAfterSettle(city: string): OrderProcess<'PaymentSettled'> {
  return {
    onTransitionEnd(_fromState, toState, data) {
      if (toState === 'PaymentSettled' && data.order.shippingAddress?.city === city) {
        throw new Error(`test order process: failed after ${data.order.code} was settled`);
      }
    },
  };
}

export function orderOptionsFor(failAfterSettleCity: string | undefined): VendureConfig['orderOptions'] {
  return failAfterSettleCity
    ? { process: [defaultOrderProcess, failingAfterSettle(failAfterSettleCity)] }
    : {};
}
