import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { reportCanceledOrderRefunds } from '../lib/canceled-order-refunds';

/**
 * After Medusa cancels an order: its gatewaykit payments that were not refunded are alerted
 * (lib/canceled-order-refunds.ts). A subscriber, not the cancel workflow's hook: Medusa allows one
 * handler per hook, and a store's own would then fail to load.
 */
export default async function gatewaykitOrderCanceled({
  event,
  container,
}: SubscriberArgs<{ id: string }>): Promise<void> {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER);
  try {
    const notRefunded = await reportCanceledOrderRefunds(container, event.data.id);
    logger.info(
      `gatewaykit: order ${event.data.id} canceled: ${notRefunded === 0 ? 'its gatewaykit payments are refunded' : `${notRefunded} gatewaykit payment(s) not refunded`}`,
    );
  } catch (error) {
    logger.error(
      `gatewaykit: order ${event.data.id} was canceled, and its gateway refunds could not be checked (${String(error)}): check them in the gateway's merchant portal`,
    );
  }
}

export const config: SubscriberConfig = { event: 'order.canceled' };
