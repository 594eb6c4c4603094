import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { cancelOrderWorkflow } from '@medusajs/medusa/core-flows';
import { reportCanceledOrderRefunds } from '../../lib/canceled-order-refunds';

// After Medusa cancels an order: its gatewaykit payments that were not refunded are alerted
// (lib/canceled-order-refunds.ts). Never throws: the cancel is done, and a throw would undo it.
cancelOrderWorkflow.hooks.orderCanceled(async ({ order }, { container }) => {
  try {
    await reportCanceledOrderRefunds(container, (order as { id: string }).id);
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .error(
        `gatewaykit: order ${(order as { id: string }).id} was canceled, and its gateway refunds could not be checked (${String(error)}): check them in the gateway's merchant portal`,
      );
  }
});
