import { LanguageCode, PaymentMethodHandler } from '@vendure/core';

/**
 * Benchmark baseline only (enabled with GATEWAYKIT_BENCH=1): settles every payment without any
 * gateway, so `npm run bench` can compare the gateway's saved-card path with Vendure's own floor.
 */
export const noopPaymentHandler = new PaymentMethodHandler({
  code: 'bench-noop',
  description: [{ languageCode: LanguageCode.en, value: 'No-op payment (benchmark baseline)' }],
  args: {},
  createPayment: (_ctx, _order, amount) => ({ amount, state: 'Settled' as const, transactionId: 'noop' }),
  settlePayment: () => ({ success: true }),
});
