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
 * days (chargebacks are few). It is asked in slices of 30 days, in case the gateway limits a query's
 * range. The times are UTC; the gateway's own time zone is not published, so the window's end reaches
 * a day past now.
 */
export const CHARGEBACK_LOOKBACK_DAYS = 180;
const DAY_MS = 24 * 60 * 60 * 1000;
export const CHARGEBACK_LOOKBACK_MS = CHARGEBACK_LOOKBACK_DAYS * DAY_MS;
/** The longest look-back a store may set: a year of 30-day slices is 13 calls a run. */
const MAX_LOOKBACK_DAYS = 366;
const SLICE_MS = 30 * DAY_MS;
const PAGE_SIZE = 1000;
/** A bound on one slice's reading (10,000 chargebacks in 30 days); past it the run says so. */
const MAX_PAGES = 10;

/**
 * An adapter's look-back setting (`chargebackLookbackDays`), checked before the store starts: whole days
 * from 0 to 366, the default when unset. 0 turns the chargeback pass off, for a merchant whose account
 * has no access to the gateway's chargeback list (its every run would report the refusal); chargebacks
 * then come only from their notices (docs/gateway-protocol.md#chargebacks-in-each-run).
 */
export function chargebackLookbackMs(days: unknown, option = 'chargebackLookbackDays'): number {
  if (days === undefined) return CHARGEBACK_LOOKBACK_MS;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 0 || days > MAX_LOOKBACK_DAYS) {
    throw new TypeError(`${option} must be a whole number of days from 0 to ${MAX_LOOKBACK_DAYS}`);
  }
  return days * DAY_MS;
}

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

/** Every chargeback the gateway lists for the merchant over the look-back, slice by slice, page by page. */
export async function listRecentChargebacks(
  client: Pick<GatewayClient, 'chargebacks'>,
  options: { now?: Date | number; lookbackMs?: number; signal?: AbortSignal } = {},
): Promise<ChargebackListing> {
  // A look-back of 0: the pass is off (chargebackLookbackMs), nothing is asked.
  if (options.lookbackMs === 0) return { events: [] };
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const end = now + DAY_MS;
  const events: ChargebackEvent[] = [];
  const seen = new Set<string>();
  for (let from = now - (options.lookbackMs ?? CHARGEBACK_LOOKBACK_MS); from < end; from += SLICE_MS) {
    // Slices meet at a second: a chargeback listed by both is taken once.
    const window = {
      startTime: recordQueryTime(from),
      endTime: recordQueryTime(Math.min(from + SLICE_MS, end)),
    };
    const error = await readSlice(client, window, options.signal, (event) => {
      const key = event.batchNo ?? JSON.stringify(event);
      if (seen.has(key)) return false;
      seen.add(key);
      events.push(event);
      return true;
    });
    if (error) return { events, error };
  }
  return { events };
}

/**
 * One slice of the window, page by page; `take` is given each chargeback and says whether it was new.
 * A page shorter than the gateway's page size is the last; so is one that reaches a total the answer
 * gave, and one with nothing new (a gateway that ignores pageIndex answers the same page again).
 */
async function readSlice(
  client: Pick<GatewayClient, 'chargebacks'>,
  window: { startTime: string; endTime: string },
  signal: AbortSignal | undefined,
  take: (event: ChargebackEvent) => boolean,
): Promise<string | undefined> {
  for (let pageIndex = 1; pageIndex <= MAX_PAGES; pageIndex++) {
    let list: ChargebackRecord[];
    let page: { total: number; pageSize: number };
    try {
      ({ list, page } = await client.chargebacks.list(
        { ...window, pageIndex, pageSize: PAGE_SIZE },
        signal ? { signal } : undefined,
      ));
    } catch (error) {
      return `the gateway's list of chargebacks could not be read (${redactedErrorText(error)}); try again later`;
    }
    let fresh = 0;
    for (const record of list) if (take(chargebackEventFromRecord(record))) fresh++;
    const size = page.pageSize > 0 ? Math.min(page.pageSize, PAGE_SIZE) : PAGE_SIZE;
    if (list.length < size || fresh === 0) return undefined;
    if (page.total > list.length && pageIndex * size >= page.total) return undefined;
  }
  return `more than ${MAX_PAGES * PAGE_SIZE} chargebacks listed from ${window.startTime} to ${window.endTime}: only those were read; look at the rest in the merchant portal`;
}
