import { defaultRefundProcess, EventBus, RefundEvent, type VendureConfig } from '@vendure/core';

/**
 * Tests only (GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON): another plugin's hook that throws once a refund
 * given `reason` was created, after the gateway was asked (Settled, or Pending when its answer was lost):
 * a blocking RefundEvent handler, so the admin request's transaction rolls back, the Refund with it
 * (docs/safety-rules.md#refund-intents). Never configured in a real store.
 */
function failingAfterRefund(reason: string): typeof defaultRefundProcess {
  return {
    init(injector) {
      injector.get(EventBus).registerBlockingEventHandler({
        event: RefundEvent,
        id: 'gatewaykit-test-fail-after-refund',
        handler: (event) => {
          if (event.type === 'created' && event.refund.reason === reason) {
            throw new Error(`test refund process: failed after refund of ${event.order.code} was made`);
          }
        },
      });
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
