import { defaultRefundProcess, type VendureConfig } from '@vendure/core';

/**
 * Tests only (GATEWAYKIT_TEST_FAIL_AFTER_REFUND_CITY): another plugin's refund process whose hook throws
 * once a refund of an order shipped to `city` is Settled, after the gateway made it: the admin request's
 * transaction rolls back, the Refund with it (docs/safety-rules.md#refund-intents). Never configured in
 * a real store.
 */
function failingAfterRefund(city: string): typeof defaultRefundProcess {
  return {
    onTransitionEnd(_fromState, toState, data) {
      if (toState === 'Settled' && data.order.shippingAddress?.city === city) {
        throw new Error(`test refund process: failed after refund of ${data.order.code} was made`);
      }
    },
  };
}

export function refundProcessFor(
  failAfterRefundCity: string | undefined,
): VendureConfig['paymentOptions']['refundProcess'] {
  return failAfterRefundCity ? [defaultRefundProcess, failingAfterRefund(failAfterRefundCity)] : undefined;
}
