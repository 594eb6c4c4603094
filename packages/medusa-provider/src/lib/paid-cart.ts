import type { PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { completeCartWorkflow } from '@medusajs/medusa/core-flows';
import { cartOfPaymentCollection } from './cart-of-collection';
import { reportUnappliedCharge } from './merchant-alerts';

/** After the first recording: completions tried again after these pauses before it is reported. */
const RETRY_PAUSES_MS = [1_000, 3_000];

export interface PaidCartOptions {
  /**
   * The first recording of the success: tries again after pauses and reports a cart that stays
   * open. Otherwise (a repeated success) one try, and a warning.
   */
  first: boolean;
}

/**
 * A paid session's cart must become an order. Medusa completes it inside processPaymentWorkflow, as a
 * step that may fail without failing the workflow (e.g. its cart lock not acquired within 30 s under
 * load); the money is taken by then. So: read the cart, complete it again while it is still open,
 * and say it loudly when it stays open (docs/inbound.md#paid-but-not-applied).
 */
export async function completePaidCart(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  outcome: PaymentOutcome,
  options: PaidCartOptions,
): Promise<void> {
  const pauses = options.first ? RETRY_PAUSES_MS : [];
  let failure = '';
  for (let tries = 0; tries <= pauses.length; tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, pauses[tries - 1]));
    const cart = await cartOfPaymentCollection<{ id: string; completed_at?: unknown }>(
      scope,
      session.payment_collection_id,
      ['id', 'completed_at'],
    );
    if (!cart || cart.completed_at) return;
    const { errors } = await completeCartWorkflow(scope).run({
      input: { id: cart.id },
      throwOnError: false,
    });
    if (!errors?.length) return;
    failure = errors.map((e) => e.error?.message ?? String(e.error)).join('; ');
  }
  const reason = `its cart could not be completed into an order (${failure})`;
  if (options.first) await reportUnappliedCharge(scope, outcome, reason);
  else
    scope
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(
        `gatewaykit: payment session ${session.id} is paid but ${reason}; reported when it was first recorded`,
      );
}
