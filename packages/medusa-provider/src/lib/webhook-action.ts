import { fromOrderAmount, type PaymentOutcome } from '@gatewaykit/core';
import type { WebhookActionResult } from '@medusajs/framework/types';

/** Medusa webhook action for an outcome; only a success lets Medusa's processPaymentWorkflow run. */
export function webhookActionFor(outcome: PaymentOutcome | undefined): WebhookActionResult {
  if (outcome?.status !== 'succeeded' || !outcome.amount || !outcome.currency)
    return { action: 'not_supported' };
  return {
    action: 'captured',
    data: { session_id: outcome.orderNo, amount: fromOrderAmount(outcome.amount, outcome.currency) },
  };
}
