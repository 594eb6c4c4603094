import { type ChargebackEvent, redactedErrorText } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { pagesOf, underPageLock } from './deleted-pages';
import { type GatewayChargeback, withChargeback } from './gateway-records';
import type { AlertBeforeWrite } from './payment-notices';

/**
 * Chargebacks of a payment made on a page whose session Medusa deleted
 * (docs/payment-states.md#a-page-whose-session-was-deleted): no payment or session holds that money, so
 * the kept page holds its chargebacks, in the payment data's entry shape (withChargeback). Said apart
 * from CHARGEBACK, since the PAID BUT NOT APPLIED alert for that page asks for a portal refund that
 * would return the money a second time.
 */

/** `not-found`: `providerIds` kept no page for the orderNo (or it became a payment). */
export type PageChargebackResult = 'added' | 'known' | 'not-found';

/**
 * Keeps `event` on the page of `orderNo` kept by `providerIds`, once whichever path brings it first
 * (the notice or the run, on any instance): decided under the page lock, and `alert` runs before the
 * write, so a process that dies in between alerts again on the next delivery rather than never.
 */
export async function recordChargebackOnDeletedPage(
  scope: MedusaContainer,
  providerIds: readonly string[],
  orderNo: string,
  event: ChargebackEvent,
  alert: AlertBeforeWrite<GatewayChargeback>,
  now: Date = new Date(),
): Promise<PageChargebackResult> {
  const pages = pagesOf(scope);
  // Without the lock: chargebacks are only ever added, so one found kept stays kept (every run lists
  // the same chargebacks again).
  let seen: GatewayChargeback[] | undefined;
  try {
    seen = await pages.chargebacksOf(orderNo, providerIds);
  } catch (error) {
    throw new Error(
      `the pages kept for deleted sessions could not be read (${redactedErrorText(error)}); run \`npx medusa db:migrate\``,
    );
  }
  if (!seen) return 'not-found';
  if (!withChargeback(seen, event, now).added) return 'known';
  return underPageLock(scope, orderNo, async () => {
    const kept = await pages.chargebacksOf(orderNo, providerIds);
    if (!kept) return 'not-found';
    const { added, chargeback, chargebacks } = withChargeback(kept, event, now);
    if (!added) return 'known';
    await alert(chargeback);
    await pages.writeChargebacks(orderNo, providerIds, chargebacks);
    return 'added';
  });
}
