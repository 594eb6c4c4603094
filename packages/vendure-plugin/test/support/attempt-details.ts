import type { AttemptDetails } from '../../src/service/attempt-guard';

/**
 * A card attempt's stored details for order `orderId` (code `<prefix><orderId>`), 10.00 USD in the
 * default channel: what the attempt tests claim, each with its own prefix so their orders never meet.
 */
export function cardAttemptDetails(orderId: string, prefix: string): AttemptDetails {
  return {
    orderId,
    orderCode: `${prefix}${orderId}`,
    channelId: '1',
    paymentMethodCode: 'gatewaykit-card',
    mode: 'card',
    amount: 1000,
    orderAmount: '10.00',
    currency: 'USD',
  };
}
