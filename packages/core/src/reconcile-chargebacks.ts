/**
 * Reconciliation of chargebacks (docs/gateway-protocol.md#reconciliation): the gateway's list of
 * chargebacks is read back, and each one is given as the event its `chargeback.success` notice would
 * have given, for the adapter to record the same way (a chargeback it already holds changes nothing). A
 * notice the store could not take for the gateway's whole retry schedule is found this way. Nothing is
 * sent that moves money.
 */

import type { GatewayClient } from './client.js';
import type { ChargebackEvent } from './notification-events.js';
import { recordQueryTime } from './reconcile.js';
import { redactedErrorText, redactText } from './redact.js';
import type { ChargebackRecord } from './schemas/transactions.js';

/**
 * How far back each run lists chargebacks. Which date the list's window filters on is not published:
 * if it is the trade's, a chargeback comes up to about 120 days after it, so the window reaches 180
 * days (chargebacks are few; the pages bound a run's reading). The times are UTC; the gateway's own
 * time zone is not published, so the window's end reaches a day past now.
 */
export const CHARGEBACK_LOOKBACK_MS = 180 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
const PAGE_SIZE = 1000;
/** A bound on one run's reading (10,000 chargebacks a week); past it the run says so. */
const MAX_PAGES = 10;

export interface ChargebackListing {
  /** The chargebacks listed, as their notices would have said them. */
  events: ChargebackEvent[];
  /** Set when the list could not be read whole: the events are what was read before it. */
  error?: string | undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** The chargeback event of an item of the gateway's chargeback list. */
export function chargebackEventFromRecord(record: ChargebackRecord): ChargebackEvent {
  const reason = nonEmpty(record.reason);
  return {
    kind: 'chargeback',
    batchNo: nonEmpty(record.batchNo),
    tradeNo: nonEmpty(record.tradeNo),
    orderNo: nonEmpty(record.orderNo),
    amount: nonEmpty(record.amount),
    currency: nonEmpty(record.currency),
    reason: reason === undefined ? undefined : redactText(reason),
    replyDeadline: nonEmpty(record.replyDeadline),
    cpdDate: nonEmpty(record.cpdDate),
    noticeDate: nonEmpty(record.noticeDate),
  };
}

/** Every chargeback the gateway lists for the merchant over the look-back, page by page. */
export async function listRecentChargebacks(
  client: Pick<GatewayClient, 'chargebacks'>,
  options: { now?: Date | number; lookbackMs?: number; signal?: AbortSignal } = {},
): Promise<ChargebackListing> {
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const startTime = recordQueryTime(now - (options.lookbackMs ?? CHARGEBACK_LOOKBACK_MS));
  const endTime = recordQueryTime(now + DAY_MS);
  const events: ChargebackEvent[] = [];
  for (let pageIndex = 1; pageIndex <= MAX_PAGES; pageIndex++) {
    try {
      const { list, page } = await client.chargebacks.list(
        { startTime, endTime, pageIndex, pageSize: PAGE_SIZE },
        options.signal ? { signal: options.signal } : undefined,
      );
      events.push(...list.map(chargebackEventFromRecord));
      // A page shorter than the gateway's page size is the last; so is one that reaches a total the
      // answer gave (without one, the schema counts the page's own items, and the next page is read).
      const size = page.pageSize > 0 ? Math.min(page.pageSize, PAGE_SIZE) : PAGE_SIZE;
      if (list.length === 0 || list.length < size) return { events };
      if (page.total > list.length && pageIndex * size >= page.total) return { events };
    } catch (error) {
      return {
        events,
        error: `the gateway's list of chargebacks could not be read (${redactedErrorText(error)}); try again later`,
      };
    }
  }
  return {
    events,
    error: `more than ${MAX_PAGES * PAGE_SIZE} chargebacks listed: only those were read; look at the rest in the merchant portal`,
  };
}
