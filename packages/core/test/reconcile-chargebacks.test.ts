import { describe, expect, it } from 'vitest';
import { CHARGEBACK_LOOKBACK_MS, chargebackLookbackMs, listRecentChargebacks } from '../src/index.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

/** A chargeback of the fake gateway, dated `daysAgo` before NOW. */
const chargeback = (n: number, daysAgo = 1) => ({
  batchNo: `CB${n}`,
  tradeNo: `T${n}`,
  orderNo: `O${n}`,
  amount: '10.00',
  currency: 'USD',
  reason: 'D4755 card 4242424242424242',
  replyDeadline: '2026-12-24',
  cpdDate: '2026-12-01',
  noticeDate: '2026-11-28 10:00:00',
  at: new Date(NOW - daysAgo * DAY).toISOString().slice(0, 19),
});

/**
 * A gateway's chargeback list over `records`: filtered by the query's window, paged. Its quirks: pages
 * smaller than asked (`pageSizeCap`), no paging fields (`bare`), pageIndex ignored, a failing call.
 */
function fakeGateway(
  records: ReturnType<typeof chargeback>[],
  quirks: { pageSizeCap?: number; bare?: boolean; ignorePageIndex?: boolean; failCall?: number } = {},
) {
  const queries: { startTime: string; endTime: string; pageIndex: number }[] = [];
  const list = async (query: { startTime: string; endTime: string; pageIndex: number; pageSize: number }) => {
    queries.push({ startTime: query.startTime, endTime: query.endTime, pageIndex: query.pageIndex });
    if (queries.length === quirks.failCall) throw new Error('socket hang up near 4242424242424242');
    const inWindow = records.filter((r) => r.at >= query.startTime && r.at <= query.endTime);
    const size = Math.min(query.pageSize, quirks.pageSizeCap ?? query.pageSize);
    const index = quirks.ignorePageIndex ? 1 : query.pageIndex;
    const items = inWindow.slice((index - 1) * size, index * size).map(({ at: _at, ...item }) => item);
    // What the client's schema gives: without paging fields, the page's own count stands in for both.
    const page = quirks.bare
      ? { total: items.length, pageSize: items.length, pageIndex: index }
      : { total: inWindow.length, pageSize: size, pageIndex: index };
    return { list: items, page };
  };
  return { client: { chargebacks: { list } } as never, queries };
}

/** The pages asked of the slice holding the time `at`. */
const pagesAsked = (queries: { startTime: string; endTime: string; pageIndex: number }[], at: string) =>
  queries.filter((query) => query.startTime <= at && at < query.endTime).map((query) => query.pageIndex);

describe('listRecentChargebacks', () => {
  it('asks the look-back in 30-day slices (UTC, the end a day past now) and gives each chargeback as its notice would, reason redacted', async () => {
    const { client, queries } = fakeGateway([chargeback(1, 1), chargeback(2, 150)]);
    const { events, error } = await listRecentChargebacks(client, { now: NOW });
    expect(error).toBeUndefined();
    expect(queries[0]?.startTime).toBe(new Date(NOW - CHARGEBACK_LOOKBACK_MS).toISOString().slice(0, 19));
    expect(queries.at(-1)?.endTime).toBe('2026-11-29T12:00:00');
    for (const [i, query] of queries.slice(1).entries()) expect(query.startTime).toBe(queries[i]?.endTime);
    expect(queries).toHaveLength(7);
    expect(events.map((event) => event.batchNo).sort()).toEqual(['CB1', 'CB2']);
    expect(events.find((event) => event.batchNo === 'CB1')).toEqual({
      kind: 'chargeback',
      batchNo: 'CB1',
      tradeNo: 'T1',
      orderNo: 'O1',
      amount: '10.00',
      currency: 'USD',
      reason: 'D4755 card 424242***4242',
      replyDeadline: '2026-12-24',
      cpdDate: '2026-12-01',
      noticeDate: '2026-11-28 10:00:00',
    });
  });

  it('reads page after page until the total is reached, and pages smaller than asked until a short one', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => chargeback(i));
    const full = await listRecentChargebacks(fakeGateway(many).client, { now: NOW });
    expect(full.error).toBeUndefined();
    expect(full.events).toHaveLength(1001);
    const small = fakeGateway(many.slice(0, 107), { pageSizeCap: 50, bare: true });
    const bare = await listRecentChargebacks(small.client, { now: NOW });
    expect(bare.error).toBeUndefined();
    expect(bare.events).toHaveLength(107);
    expect(pagesAsked(small.queries, chargeback(0).at)).toEqual([1, 2, 3, 4]);
  });

  it('a gateway that answers the same page whatever the pageIndex: read once, not ten times', async () => {
    const same = fakeGateway(
      Array.from({ length: 50 }, (_, i) => chargeback(i)),
      { pageSizeCap: 50, bare: true, ignorePageIndex: true },
    );
    const { events, error } = await listRecentChargebacks(same.client, { now: NOW });
    expect(error).toBeUndefined();
    expect(events).toHaveLength(50);
    expect(pagesAsked(same.queries, chargeback(0).at)).toEqual([1, 2]);
  });

  it('a call that fails: what was read so far, and the reason (redacted)', async () => {
    const { client } = fakeGateway([chargeback(1, 170), chargeback(2, 1)], { failCall: 3 });
    const { events, error } = await listRecentChargebacks(client, { now: NOW });
    expect(events.map((event) => event.batchNo)).toEqual(['CB1']);
    expect(error).toMatch(/^the gateway's list of chargebacks could not be read \(.*\); try again later$/);
    expect(error).not.toContain('4242424242424242');
  });

  it('a look-back of 0 asks nothing; a shorter one asks only its own slices', async () => {
    const off = fakeGateway([chargeback(1, 1)]);
    expect(await listRecentChargebacks(off.client, { now: NOW, lookbackMs: 0 })).toEqual({ events: [] });
    expect(off.queries).toHaveLength(0);
    const short = fakeGateway([chargeback(1, 1), chargeback(2, 150)]);
    const { events } = await listRecentChargebacks(short.client, {
      now: NOW,
      lookbackMs: chargebackLookbackMs(30),
    });
    expect(short.queries[0]?.startTime).toBe(new Date(NOW - 30 * 86_400_000).toISOString().slice(0, 19));
    expect(short.queries).toHaveLength(2);
    expect(events.map((event) => event.batchNo)).toEqual(['CB1']);
  });
});

describe('chargebackLookbackMs', () => {
  it('takes whole days from 0 to 366, the default when unset, and refuses anything else naming the option', () => {
    expect(chargebackLookbackMs(undefined)).toBe(CHARGEBACK_LOOKBACK_MS);
    expect(chargebackLookbackMs(0)).toBe(0);
    expect(chargebackLookbackMs(366)).toBe(366 * 86_400_000);
    for (const bad of [-1, 1.5, 367, '30', null, Number.NaN]) {
      expect(() => chargebackLookbackMs(bad, 'reconcile.chargebackLookbackDays')).toThrow(
        'reconcile.chargebackLookbackDays must be a whole number of days from 0 to 366',
      );
    }
  });
});
