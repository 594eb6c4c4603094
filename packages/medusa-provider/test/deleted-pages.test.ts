import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../src/lib/charge-claim';
import { DeletedPages } from '../src/lib/deleted-pages';
import { mayStillBePaid } from '../src/lib/open-charges';
import { reconcileDeletedPages } from '../src/lib/reconcile-deleted-pages';

const ACCOUNT = {
  id: 'gatewaykit',
  gatewayNo: '12345678',
  signKey: 'k',
  options: {
    gatewayNo: '12345678',
    signKey: 'k',
    baseUrl: 'http://127.0.0.1:1',
    backendUrl: 'http://127.0.0.1:9000',
    storefrontReturnUrl: 'http://127.0.0.1:8000/return',
  },
  providerIds: ['pp_gatewaykit_gatewaykit', 'pp_gatewaykit-hosted_gatewaykit'],
};

/** A database that records each statement and answers with `rows`, or throws `failure`. */
function recordingDatabase(rows: Record<string, unknown>[] = [], failure?: Error) {
  const statements: { sql: string; bindings: readonly unknown[] }[] = [];
  const db = {
    async raw(sql: string, bindings: readonly unknown[]) {
      statements.push({ sql, bindings });
      if (failure) throw failure;
      return { rows };
    },
    transaction: async () => {
      throw new Error('not used');
    },
  } as SqlDatabase;
  return { db, statements };
}

const sentAt = '2026-11-28T10:00:00.000Z';
const page = {
  orderNo: 'payses_1',
  mode: 'hosted' as const,
  amount: '10.00',
  currency: 'USD',
  attemptedAt: sentAt,
};

describe('pages kept when Medusa deletes their session', () => {
  it('keeps a page the shopper was sent to, and one a failure was recorded for; not a session that never had one', () => {
    const redirect = { orderNo: 'payses_1', status: 'redirect' as const, redirectUrl: 'https://gw/pay' };
    expect(mayStillBePaid({ ...page, outcome: redirect, redirectUrl: redirect.redirectUrl })).toBe(true);
    const declined = { orderNo: 'payses_1', status: 'failed' as const, reason: 'declined' };
    expect(mayStillBePaid({ ...page, outcome: declined, redirectUrl: 'https://gw/pay' })).toBe(true);
    // A card declined at once never had a page; a session never sent has nothing to ask about.
    expect(mayStillBePaid({ ...page, mode: 'card', outcome: declined })).toBe(false);
    expect(mayStillBePaid({ orderNo: 'payses_1', mode: 'hosted', amount: '10.00', currency: 'USD' })).toBe(
      false,
    );
  });

  it('keep reads the provider from the session row, and what older sessions lack from the row too', async () => {
    const { db, statements } = recordingDatabase();
    const pages = new DeletedPages(db);
    await pages.keep(page);
    expect(statements[0]!.sql).toMatch(/FROM payment_session WHERE id = \?/);
    expect(statements[0]!.bindings).toEqual(['10.00', 'USD', 'hosted', sentAt, 'payses_1']);
    // Never an undefined binding (knex refuses them): the row's amount, currency and last update instead.
    await pages.keep({
      orderNo: 'payses_2',
      outcome: { orderNo: 'payses_2', status: 'redirect', redirectUrl: 'x' },
    });
    expect(statements[1]!.bindings).toEqual([null, null, '', null, 'payses_2']);
    expect(statements[1]!.sql).toMatch(/COALESCE\(\?, amount::text\)/);
    await pages.keep({});
    expect(statements).toHaveLength(2);
  });

  it('the end statement only ends an open page, or replaces another end with a report (its shape; the real-store reconcile tests run it)', async () => {
    const { db, statements } = recordingDatabase();
    await new DeletedPages(db).end('payses_1', 'expired');
    expect(statements[0]!.sql).toMatch(/ended_as IS NULL OR \(ended_as <> 'reported' AND \? = 'reported'\)/);
    expect(statements[0]!.bindings).toEqual(['expired', 'payses_1', 'expired']);
  });

  it("lists only the account's own providers, one binding per value, and nothing for an empty list of orderNos", async () => {
    const { db, statements } = recordingDatabase();
    const pages = new DeletedPages(db);
    await pages.open(ACCOUNT.providerIds);
    expect(statements[0]!.sql).toMatch(/provider_id IN \(\?, \?\)/);
    expect(statements[0]!.sql).not.toMatch(/order_no IN/);
    expect(statements[0]!.bindings).toEqual(ACCOUNT.providerIds);
    await pages.open(ACCOUNT.providerIds, ['payses_1', 'payses_2', 'payses_3']);
    expect(statements[1]!.sql).toMatch(/order_no IN \(\?, \?, \?\)/);
    expect(statements[1]!.bindings).toEqual([...ACCOUNT.providerIds, 'payses_1', 'payses_2', 'payses_3']);
    expect(await pages.open(ACCOUNT.providerIds, [])).toEqual([]);
    expect(statements).toHaveLength(2);
  });

  it('a run whose kept pages cannot be read (the migration not run) says so in one error line, and does not throw', async () => {
    const { db } = recordingDatabase([], new Error('relation "gatewaykit_deleted_page" does not exist'));
    const errors: string[] = [];
    const scope = {
      resolve(key: string) {
        if (key === ContainerRegistrationKeys.PG_CONNECTION) return db;
        if (key === ContainerRegistrationKeys.LOGGER) return { error: (line: string) => errors.push(line) };
        throw new Error(`unexpected ${key}`);
      },
    } as unknown as MedusaContainer;
    const now = new Date();
    const lines = await reconcileDeletedPages(scope, ACCOUNT, { now, pendingAfterMs: 1000, askForMs: 2000 });
    expect(lines).toEqual([
      expect.objectContaining({ orderNo: '*', result: 'error', reason: expect.stringMatching(/db:migrate/) }),
    ]);
    expect(errors).toHaveLength(1);
  });
});
