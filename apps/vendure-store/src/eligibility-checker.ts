import { LanguageCode, PaymentMethodEligibilityChecker } from '@vendure/core';

/**
 * Demo eligibility rule: the method is offered only up to an order total (in minor units). The tests
 * use it to prove a payment is never started with a method Vendure would refuse to record.
 */
export const maxOrderTotalChecker = new PaymentMethodEligibilityChecker({
  code: 'max-order-total',
  description: [{ languageCode: LanguageCode.en, value: 'Only for orders up to a total' }],
  args: { maxTotal: { type: 'int' } },
  check: (_ctx, order, args) =>
    order.totalWithTax <= args.maxTotal ? true : 'This payment method is only for smaller orders',
});
