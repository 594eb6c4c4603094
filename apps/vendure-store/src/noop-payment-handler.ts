import { LanguageCode, PaymentMethodHandler } from '@vendure/core';

/** The longest a test may make the no-op handler take (metadata `waitMs`). */
const MAX_WAIT_MS = 5_000;

/**
 * Benchmark baseline only (enabled with GATEWAYKIT_BENCH=1): settles every payment without any
 * gateway, so `npm run bench` can compare the gateway's saved-card path with Vendure's own floor.
 * It also stands for "any other payment method" in the store's tests: metadata `waitMs` makes it as
 * slow as a real provider's call (at most 5 s), and `decline: true` declines the payment.
 */
export const noopPaymentHandler = new PaymentMethodHandler({
  code: 'bench-noop',
  description: [{ languageCode: LanguageCode.en, value: 'No-op payment (benchmark baseline)' }],
  args: {},
  createPayment: async (_ctx, _order, amount, _args, metadata) => {
    const waitMs = Number(metadata?.waitMs);
    if (Number.isFinite(waitMs) && waitMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, MAX_WAIT_MS)));
    }
    if (metadata?.decline === true) {
      return { amount, state: 'Declined' as const, errorMessage: 'declined by the no-op handler' };
    }
    return { amount, state: 'Settled' as const, transactionId: 'noop' };
  },
  settlePayment: () => ({ success: true }),
});
