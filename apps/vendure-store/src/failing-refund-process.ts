import { defaultRefundProcess, type VendureConfig } from '@vendure/core';

/**
 * Tests only (GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON): another plugin's refund process whose hook throws
 * once a refund given `reason` is Settled, after the gateway made it: the admin request's transaction
 * rolls back, the Refund with it (docs/safety-rules.md#refund-intents). Never configured in a real store.
 */
function failingAfterRefund(reason: string): typeof defaultRefundProcess {
  return {
    onTransitionEnd(_fromState, toState, data) {
      if (toState === 'Settled' && data.refund.reason === reason) {
        throw new Error(`test refund process: failed after refund of ${data.order.code} was made`);
      }
    },
  };
}

export function refundProcessFor(
  failAfterRefundReason: string | undefined,
): VendureConfig['paymentOptions']['refundProcess'] {
  return failAfterRefundReason
    ? [defaultRefundProcess, failingAfterRefund(failAfterRefundReason)]
    : undefined;
}
