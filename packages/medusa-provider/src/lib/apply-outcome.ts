import { assertAmountMatches, mergeOutcome, type PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, MedusaError, Modules } from '@medusajs/framework/utils';
import { processPaymentWorkflow } from '@medusajs/medusa/core-flows';
import { cartOfPaymentCollection } from './cart-of-collection';
import { gatewayAmount } from './payment-request';
import { readSessionData, withOutcome } from './session-data';
import { reportUnappliedCharge } from './unapplied-charge';

export interface AppliedOutcome {
  session: PaymentSessionDTO;
  outcome: PaymentOutcome;
  changed: boolean;
}

/**
 * Writes a verified callback/return outcome into its payment session (matched by orderNo = session
 * id), then lets Medusa authorize the session and complete the cart. Monotonic and idempotent:
 * duplicates change nothing, a success is never downgraded. Runs under Medusa's locking module, so
 * concurrent deliveries of one orderNo are serialised.
 */
export async function applyOutcome(
  scope: MedusaContainer,
  incoming: PaymentOutcome,
  providerIds: readonly string[],
  attempt = 1,
): Promise<AppliedOutcome> {
  const paymentModule = scope.resolve(Modules.PAYMENT);
  const locking = scope.resolve(Modules.LOCKING);
  const logger = scope.resolve(ContainerRegistrationKeys.LOGGER);

  // Lock the cart id, the key Medusa's cart completion and processPaymentWorkflow lock: the session data
  // is then never read while an authorize of the same session is about to save its own copy.
  const first = await findSession(scope, incoming.orderNo, providerIds);
  const lockKey = (await cartIdOfSession(scope, first)) ?? `gatewaykit:${incoming.orderNo}`;
  const result = await locking.execute(
    lockKey,
    async () => {
      const session = await findSession(scope, incoming.orderNo, providerIds);
      const expectedAmount = gatewayAmount(session.amount, session.currency_code);
      if (incoming.status === 'succeeded' || incoming.amount !== undefined) {
        assertAmountMatches(incoming, expectedAmount, session.currency_code);
      }
      const data = readSessionData(session.data);
      const { next, changed } = mergeOutcome(data.outcome, incoming);
      if (!changed) return { session, outcome: next, changed };
      const updated = await paymentModule.updatePaymentSession({
        id: session.id,
        amount: session.amount,
        currency_code: session.currency_code,
        data: withOutcome(data, next) as Record<string, unknown>,
        // A failure closes the session (the storefront starts a new one); a success becomes `captured`
        // through the authorization below; others take the provider's mapping (pending ->
        // pending_authorization), so the cart stays processable.
        status: next.status === 'failed' ? 'error' : next.status === 'succeeded' ? session.status : undefined,
      });
      logger.info(
        `gatewaykit: session ${session.id} outcome ${data.outcome?.status ?? 'none'} -> ${next.status}`,
      );
      return { session: updated, outcome: next, changed };
    },
    { timeout: 60 },
  );

  if (result.outcome.status === 'succeeded' && !result.session.authorized_at) {
    // Same path as Medusa's own payment webhooks: authorize (the provider reads the stored success and
    // answers `captured`), then complete the cart if the storefront has not done it yet.
    await processPaymentWorkflow(scope).run({
      input: { action: 'captured', data: { session_id: result.session.id, amount: result.session.amount } },
    });
    const after = await findSession(scope, incoming.orderNo, providerIds);
    if (!after.authorized_at && readSessionData(after.data).outcome?.status !== 'succeeded' && attempt < 3) {
      // A concurrent authorize saved its older result over ours: store the success again and retry.
      return applyOutcome(scope, incoming, providerIds, attempt + 1);
    }
    if (!after.authorized_at) {
      await reportUnappliedCharge(scope, incoming, `payment session ${after.id} could not be authorized`);
    }
  }
  return result;
}

/** The session of orderNo, if it belongs to one of the given providers (the verifying account's). */
async function findSession(
  scope: MedusaContainer,
  orderNo: string,
  providerIds: readonly string[],
): Promise<PaymentSessionDTO> {
  const paymentModule = scope.resolve(Modules.PAYMENT);
  const [session] = await paymentModule.listPaymentSessions({ id: orderNo });
  if (!session || !providerIds.includes(session.provider_id)) {
    throw new MedusaError(
      MedusaError.Types.NOT_FOUND,
      `No gatewaykit payment session for orderNo ${orderNo}`,
    );
  }
  return session;
}

/** The cart a payment session pays for, for the storefront redirect after a return. */
export async function cartIdOfSession(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
): Promise<string | undefined> {
  const cart = await cartOfPaymentCollection<{ id?: string }>(scope, session.payment_collection_id, ['id']);
  return cart?.id;
}
