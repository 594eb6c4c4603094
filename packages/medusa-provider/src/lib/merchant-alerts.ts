import type { PaymentOutcome } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';

/**
 * A payment the gateway took that no cart or order can receive (its session was deleted, or the cart
 * could not take it). Never silent (docs/SECURITY.md): an error log with orderNo and tradeNo, and a
 * notification in the Medusa admin's feed, so the merchant refunds it in the gateway's portal.
 */
export async function reportUnappliedCharge(
  scope: MedusaContainer,
  outcome: PaymentOutcome,
  reason: string,
): Promise<void> {
  await alertMerchant(
    scope,
    'PAID BUT NOT APPLIED',
    'Gateway payment not applied',
    `Gateway payment orderNo ${outcome.orderNo}, tradeNo ${outcome.tradeNo ?? '?'} ` +
      `(${outcome.amount ?? '?'} ${outcome.currency ?? ''}) was taken but not applied: ${reason}. ` +
      `Refund or reconcile it in the gateway's merchant portal.`,
  );
}

/** A signed gateway result about another amount or currency than its session's: ignored, made loud. */
export async function reportAmountMismatch(
  scope: MedusaContainer,
  outcome: PaymentOutcome,
  message: string,
): Promise<void> {
  await alertMerchant(
    scope,
    'AMOUNT MISMATCH',
    'Gateway result ignored',
    `Gateway ${outcome.status} for orderNo ${outcome.orderNo}, tradeNo ${outcome.tradeNo ?? '?'} was ignored: ` +
      `${message}. Check the payment in the gateway's merchant portal.`,
  );
}

async function alertMerchant(
  scope: MedusaContainer,
  tag: string,
  title: string,
  text: string,
): Promise<void> {
  const logger = scope.resolve(ContainerRegistrationKeys.LOGGER);
  logger.error(`gatewaykit: ${tag}: ${text}`);
  try {
    await scope.resolve(Modules.NOTIFICATION).createNotifications({
      to: '',
      channel: 'feed',
      template: 'admin-ui',
      data: { title, description: text },
    });
  } catch (error) {
    // The log line above is the record; a store without the admin feed still has it.
    logger.warn(`gatewaykit: admin notification failed: ${String(error)}`);
  }
}
