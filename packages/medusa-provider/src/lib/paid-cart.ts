import type { PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { completeCartWorkflow } from '@medusajs/medusa/core-flows';
import { cartOfPaymentCollection } from './cart-of-collection';
import { reportReturnedBeforeOrder, reportUnappliedCharge } from './merchant-alerts';

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
 * and say it loudly when it stays open (docs/inbound.md#why-these-choices).
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
    // Medusa refunds a captured payment when the completion fails after it (its compensation step),
    // and a merchant may refund or cancel it too: money given back never becomes an order.
    const returned = await returnedPayment(scope, session.id);
    if (returned) {
      if (options.first) await reportReturnedBeforeOrder(scope, outcome, returned);
      else logger(scope).warn(`gatewaykit: payment session ${session.id} ${returned}; its cart stays open`);
      return;
    }
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
    logger(scope).warn(
      `gatewaykit: payment session ${session.id} is paid but ${reason}; reported when it was first recorded`,
    );
}

/** Why the session's Medusa payment is no longer money held (refunded or canceled), if it is not. */
export async function returnedPayment(
  scope: MedusaContainer,
  sessionId: string,
): Promise<string | undefined> {
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: 'payment_session',
    fields: ['id', 'payment.id', 'payment.canceled_at', 'payment.refunds.id'],
    filters: { id: sessionId },
  });
  const payment = (
    data[0] as { payment?: { canceled_at?: unknown; refunds?: unknown[] | null } | null } | undefined
  )?.payment;
  if (payment?.canceled_at) return 'was canceled in Medusa';
  if (payment?.refunds?.length) return 'was refunded';
  return undefined;
}

function logger(scope: MedusaContainer) {
  return scope.resolve(ContainerRegistrationKeys.LOGGER);
}
