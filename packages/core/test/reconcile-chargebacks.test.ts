import { describe, expect, it } from 'vitest';
import { CHARGEBACK_LOOKBACK_MS, listRecentChargebacks } from '../src/index.js';

const record = (n: number) => ({
  batchNo: `CB${n}`,
  tradeNo: `T${n}`,
  orderNo: `O${n}`,
  amount: '10.00',
  currency: 'USD',
  reason: 'D4755 card 4242424242424242',
  chargebackInfo: { replyDeadline: '2026-12-24', cpdDate: '2026-12-01' },
  noticeDate: '2026-11-28 10:00:00',
});

/** A gateway whose chargeback list answers `pages` in turn (an Error is thrown), recording the queries. */
function gatewayListing(pages: ({ list: unknown[]; total: number } | Error)[]) {
  const queries: Record<string, unknown>[] = [];
  const client = {
    chargebacks: {
      list: async (query: Record<string, unknown>) => {
        queries.push(query);
        const page = pages[queries.length - 1];
        if (!page || page instanceof Error) throw page ?? new Error('no such page');
        return {
          list: page.list.map((item) => {
            const { chargebackInfo, ...rest } = item as ReturnType<typeof record>;
            return { ...rest, ...chargebackInfo };
          }),
          page: { total: page.total, pageSize: 1000, pageIndex: queries.length },
        };
      },
    },
  };
  return { client: client as never, queries };
}

describe('listRecentChargebacks', () => {
  it('lists the look-back (UTC, its end a day past now) and gives each chargeback as its notice would, reason redacted', async () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const { client, queries } = gatewayListing([{ list: [record(1)], total: 1 }]);
    const { events, error } = await listRecentChargebacks(client, { now });
    expect(error).toBeUndefined();
    expect(queries).toEqual([
      {
        startTime: new Date(now - CHARGEBACK_LOOKBACK_MS).toISOString().slice(0, 19),
        endTime: '2026-11-29T12:00:00',
        pageIndex: 1,
        pageSize: 1000,
      },
    ]);
    expect(events).toEqual([
      {
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
      },
    ]);
  });

  it('reads page after page until the total is reached', async () => {
    const full = Array.from({ length: 1000 }, (_, i) => record(i));
    const { client, queries } = gatewayListing([
      { list: full, total: 1001 },
      { list: [record(1000)], total: 1001 },
    ]);
    const { events, error } = await listRecentChargebacks(client);
    expect(error).toBeUndefined();
    expect(queries.map((query) => query.pageIndex)).toEqual([1, 2]);
    expect(events).toHaveLength(1001);
  });

  it('a gateway with smaller pages and no total: pages are read until a short one', async () => {
    const page = (from: number, count: number) => Array.from({ length: count }, (_, i) => record(from + i));
    const queries: number[] = [];
    const answers = [page(0, 50), page(50, 50), page(100, 7)];
    const client = {
      chargebacks: {
        list: async (query: { pageIndex: number }) => {
          queries.push(query.pageIndex);
          const list = answers[query.pageIndex - 1] ?? [];
          // What the schema gives for an answer without paging fields.
          return { list, page: { total: list.length, pageSize: list.length, pageIndex: query.pageIndex } };
        },
      },
    };
    const { events, error } = await listRecentChargebacks(client as never);
    expect(error).toBeUndefined();
    expect(queries).toEqual([1, 2, 3, 4]);
    expect(events.map((event) => event.batchNo)).toHaveLength(107);
  });

  it('a page that cannot be read: what was read so far, and the reason (redacted)', async () => {
    const full = Array.from({ length: 1000 }, (_, i) => record(i));
    const { client } = gatewayListing([
      { list: full, total: 2000 },
      new Error('socket hang up near 4242424242424242'),
    ]);
    const { events, error } = await listRecentChargebacks(client);
    expect(events).toHaveLength(1000);
    expect(error).toMatch(/^the gateway's list of chargebacks could not be read \(.*\); try again later$/);
    expect(error).not.toContain('4242424242424242');
  });
});
