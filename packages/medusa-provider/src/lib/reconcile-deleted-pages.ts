import { checkoutFlowOf, gatewayClientFor, reconcileAttempt, redactedErrorText } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import {
  type DeletedPage,
  type DeletedPages,
  pagesOf,
  reportPaidWithoutSession,
  underPageLock,
} from './deleted-pages';
import { reportUnappliedCharge, reportUnsettledPage } from './merchant-alerts';
import type { GatewaykitAccount } from './resolve-options';

/**
 * The reconciliation's pass over the pages kept for deleted sessions (lib/deleted-pages.ts,
 * docs/payment-states.md#a-page-whose-session-was-deleted): each is asked about as the page it was, and
 * paid is reported once, expired is ended, and what the gateway's records do not settle in time is
 * handed to a person once.
 */

export interface DeletedPageRunOptions {
  now: Date;
  /** Only these orderNos (an admin's run). */
  orderNos?: readonly string[] | undefined;
  /** From when its page was asked for, after which a page not paid has expired (failUnrecordedAfterSeconds). */
  pendingAfterMs: number;
  /** From its deletion, how long a page the gateway's records do not settle is asked about. */
  askForMs: number;
}

/** What the run did with one kept page: its line in the reconciliation's report. */
export interface DeletedPageResult {
  /** The kept page's orderNo; `*` when the kept pages could not be read at all. */
  orderNo: string;
  /** `reported` (paid, or not settled in time), `ended` (not paid, expired), `none` (asked again). */
  result: 'reported' | 'ended' | 'none' | 'error';
  /** What the gateway's record shows: `succeeded`, `failed`, `unknown`, `pending`, or `redirect` (nothing yet). */
  status: string;
  reason: string;
}

/**
 * The reconciliation's pass over `account`'s kept pages: each is asked about as the page it was (core's
 * reconcileAttempt with the shopper sent to it). Paid: reported once (reportPaidWithoutSession). A
 * failure ends it only past `pendingAfterMs` from when the page was made, after which the gateway's
 * pages have expired (before that, a hosted page may still take another card). Anything else is asked
 * again on the next run, for as long as the run looks back.
 */
export async function reconcileDeletedPages(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  options: DeletedPageRunOptions,
): Promise<DeletedPageResult[]> {
  const pages = pagesOf(scope);
  let open: DeletedPage[];
  try {
    open = await pages.open(account.providerIds, options.orderNos);
  } catch (error) {
    // The rest of the run (open charges, refunds) must not depend on this table (a migration not run).
    const reason = `the pages kept for deleted sessions could not be read (${redactedErrorText(error)}); run \`npx medusa db:migrate\``;
    scope.resolve(ContainerRegistrationKeys.LOGGER).error(`gatewaykit: ${reason}`);
    return [{ orderNo: '*', result: 'error', status: 'redirect', reason }];
  }
  const results: DeletedPageResult[] = [];
  for (const page of open) {
    try {
      results.push(await reconcileDeletedPage(scope, account, pages, page, options));
    } catch (error) {
      results.push({
        orderNo: page.orderNo,
        result: 'error',
        status: 'redirect',
        reason: redactedErrorText(error),
      });
    }
  }
  return results;
}

async function reconcileDeletedPage(
  scope: MedusaContainer,
  account: GatewaykitAccount,
  pages: DeletedPages,
  page: DeletedPage,
  options: DeletedPageRunOptions,
): Promise<DeletedPageResult> {
  const { orderNo } = page;
  const found = await reconcileAttempt(
    gatewayClientFor(account.options),
    {
      orderNo,
      sentAt: page.attemptedAt,
      orderAmount: page.amount,
      currency: page.currency,
      stored: { status: 'redirect' },
      flow: checkoutFlowOf(page.mode),
    },
    { now: options.now, pendingAfterMs: options.pendingAfterMs },
  );
  const outcome = found.outcome;
  if (outcome?.status === 'succeeded') {
    const paid = {
      ...outcome,
      amount: outcome.amount ?? page.amount,
      currency: outcome.currency ?? page.currency,
    };
    const said = await reportPaidWithoutSession(
      scope,
      account.providerIds,
      orderNo,
      `the gateway's record shows it paid, and no payment session of provider account "${account.id}" holds it`,
      (why) => reportUnappliedCharge(scope, paid, why),
    );
    return {
      orderNo,
      result: said === 'reported' ? 'reported' : 'none',
      status: 'succeeded',
      reason: `paid on a page whose session was deleted: ${said === 'reported' ? 'reported as PAID BUT NOT APPLIED' : 'already reported'}`,
    };
  }
  const now = options.now.getTime();
  const status = outcome?.status ?? 'redirect';
  if (outcome?.status === 'failed' && now - page.attemptedAt.getTime() > options.pendingAfterMs) {
    await underPageLock(scope, orderNo, () => pages.end(orderNo, 'expired'));
    return {
      orderNo,
      result: 'ended',
      status,
      reason: `not paid on a page whose session was deleted (${found.reason}); no longer asked about`,
    };
  }
  if (found.attention) {
    scope
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`gatewaykit: ${orderNo} (a page whose session was deleted) needs a person: ${found.reason}`);
  }
  if (now - page.deletedAt.getTime() <= options.askForMs) {
    return { orderNo, result: 'none', status, reason: `a page whose session was deleted: ${found.reason}` };
  }
  // Asked about for long enough: a person looks it up, once.
  const reported = await underPageLock(scope, orderNo, async () => {
    if ((await pages.endOf(orderNo, account.providerIds)).end) return false;
    const asked = {
      orderNo,
      status: 'unknown' as const,
      reason: found.reason,
      amount: page.amount,
      currency: page.currency,
    };
    await reportUnsettledPage(scope, asked, found.reason);
    await pages.end(orderNo, 'unsettled');
    return true;
  });
  return {
    orderNo,
    result: reported ? 'reported' : 'none',
    status,
    reason: `a page whose session was deleted, not settled by the gateway's records: ${found.reason}${reported ? '; reported as PAGE NOT SETTLED' : ''}`,
  };
}
