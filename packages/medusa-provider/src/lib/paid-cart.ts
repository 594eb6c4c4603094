import type { PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { completeCartWorkflow } from '@medusajs/medusa/core-flows';
import { totalDiffersFromPaid } from './cart-total';
import {
  alertHeldPaymentOnce,
  HELD_PAYMENT_FIELDS,
  type HeldPayment,
  isHeldAfterCancel,
} from './held-payment';
import { reportReturnedBeforeOrder, reportUnappliedCharge } from './merchant-alerts';
import { RETURNED_PAYMENT_FIELDS, type SessionPayment, whyPaymentReturned } from './returned-payment';

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
  for (let tries = 0; tries <= pauses.length + 1; tries++) {
    if (tries > 0 && tries <= pauses.length) {
      await new Promise((resolve) => setTimeout(resolve, pauses[tries - 1]));
    }
    const paid = await sessionWithCart(scope, session.id);
    const cart = paid?.payment_collection?.cart;
    if (!cart || cart.completed_at) return;
    // Canceled without a refund (the gateway has no void): the money is still taken. Said whether
    // this is the first recording or a repeat: the card's own success is recorded by its charge, so
    // its callback is always a repeat (lib/held-payment.ts).
    if (paid && isHeldAfterCancel(paid)) {
      await alertHeldPaymentOnce(scope, paid, outcome);
      return;
    }
    // Medusa refunds a captured payment when the completion fails after it (its compensation step),
    // and a merchant may refund or cancel it too: money given back never becomes an order.
    const returned = whyPaymentReturned(paid);
    if (returned) {
      if (options.first) await reportReturnedBeforeOrder(scope, outcome, returned);
      else logger(scope).warn(`gatewaykit: payment session ${session.id} ${returned}; its cart stays open`);
      return;
    }
    // The last read only tells a refund that landed during the last try from a cart still unpaid.
    if (tries > pauses.length) break;
    // An order is placed only for what was paid (lib/cart-total.ts).
    const moved = await totalDiffersFromPaid(scope, cart.id, outcome);
    if (moved) {
      if (options.first) await reportUnappliedCharge(scope, outcome, moved);
      else logger(scope).warn(`gatewaykit: payment session ${session.id} is paid but ${moved}`);
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

/** The session's cart (open or completed) and its payment, in one read. */
async function sessionWithCart(
  scope: MedusaContainer,
  sessionId: string,
): Promise<
  | (SessionPayment &
      HeldPayment & {
        payment_collection?: { cart?: { id: string; completed_at?: unknown } | null } | null;
      })
  | undefined
> {
  const { data } = await scope.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: 'payment_session',
    fields: [
      'id',
      'payment_collection.cart.id',
      'payment_collection.cart.completed_at',
      ...new Set([...RETURNED_PAYMENT_FIELDS, ...HELD_PAYMENT_FIELDS]),
    ],
    filters: { id: sessionId },
  });
  return data[0] as Awaited<ReturnType<typeof sessionWithCart>>;
}

function logger(scope: MedusaContainer) {
  return scope.resolve(ContainerRegistrationKeys.LOGGER);
}
