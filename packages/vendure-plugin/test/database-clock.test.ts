/** The start-up check of the database's clock against this process's (service/database-clock.ts). */
import { Logger, type TransactionalConnection } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import { attemptClockNow, databaseClockOffset, useDatabaseClockOffset } from '../src/service/attempt-clock';
import { CLOCK_TOLERANCE_MS, clockMismatch, DatabaseClockCheck } from '../src/service/database-clock';

const NOW = Date.parse('2026-11-28T12:00:00Z');

describe('clockMismatch', () => {
  it('accepts the same local time, give or take drift and a query', () => {
    expect(clockMismatch(new Date(NOW), NOW)).toBeUndefined();
    expect(clockMismatch(new Date(NOW - CLOCK_TOLERANCE_MS), NOW)).toBeUndefined();
    expect(clockMismatch(new Date(NOW + 2_000), NOW)).toBeUndefined();
  });

  it('names a time zone difference in either direction, with the fix', () => {
    // A database in UTC read by a server in UTC+1: its createdAt values look an hour old at once.
    expect(clockMismatch(new Date(NOW - 3_600_000), NOW)).toMatch(/60 minutes behind this server.*TZ=UTC/);
    expect(clockMismatch(new Date(NOW + 5.5 * 3_600_000), NOW)).toMatch(/330 minutes ahead of this server/);
  });

  it('reads a driver that answers text, and judges nothing it cannot read', () => {
    expect(clockMismatch(new Date(NOW - 7_200_000).toISOString(), NOW)).toMatch(/120 minutes behind/);
    expect(clockMismatch('not a time', NOW)).toBeUndefined();
    expect(clockMismatch(undefined, NOW)).toBeUndefined();
  });
});

describe('DatabaseClockCheck at start', () => {
  function connection(type: string, now: unknown) {
    const queries: string[] = [];
    const raw = {
      options: { type },
      query: async (sql: string) => {
        queries.push(sql);
        return [{ now }];
      },
    };
    return { connection: { rawConnection: raw } as unknown as TransactionalConnection, queries };
  }

  it("judges attempt ages on the database's clock when the two differ, reads it again, and goes back to this process's when they agree", async () => {
    const errors = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    const infos = vi.spyOn(Logger, 'info').mockImplementation(() => undefined);
    let databaseNow = () => new Date(Date.now() - 45 * 60_000);
    const raw = { options: { type: 'postgres' }, query: async () => [{ now: databaseNow() }] };
    const check = new DatabaseClockCheck({ rawConnection: raw } as unknown as TransactionalConnection);
    try {
      await check.onApplicationBootstrap();
      expect(databaseClockOffset()).toBeLessThanOrEqual(-45 * 60_000 + 1_000);
      expect(databaseClockOffset()).toBeGreaterThan(-45 * 60_000 - 1_000);
      expect(Math.abs(attemptClockNow() - (Date.now() - 45 * 60_000))).toBeLessThan(1_000);
      expect(errors).toHaveBeenCalledTimes(1);
      // Read again with the same difference: said once, not on every reading.
      await check.measure(false);
      expect(errors).toHaveBeenCalledTimes(1);
      // A daylight-saving change moves it by an hour: used and said.
      databaseNow = () => new Date(Date.now() + 15 * 60_000);
      await check.measure(false);
      expect(databaseClockOffset()).toBeGreaterThan(14 * 60_000);
      expect(errors).toHaveBeenCalledTimes(2);
      // The operator fixed the time zone: this process's clock again.
      databaseNow = () => new Date(Date.now() + 2_000);
      await check.measure(false);
      expect(databaseClockOffset()).toBe(0);
      expect(Math.abs(attemptClockNow() - Date.now())).toBeLessThan(50);
      expect(infos).toHaveBeenCalledWith(expect.stringMatching(/now agree/), expect.anything());
      // A reading that fails keeps the offset it had.
      useDatabaseClockOffset(-60_000 * 45);
      raw.query = async () => {
        throw new Error('connection lost');
      };
      await check.measure(false);
      expect(databaseClockOffset()).toBe(-60_000 * 45);
    } finally {
      check.onApplicationShutdown();
      useDatabaseClockOffset(0);
      errors.mockRestore();
      infos.mockRestore();
    }
  });

  it('logs the difference at error level on PostgreSQL and MySQL; asks SQLite and sql.js nothing', async () => {
    const errors = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    try {
      for (const type of ['postgres', 'mysql', 'mariadb']) {
        const { connection: skewed, queries } = connection(type, new Date(Date.now() - 3_600_000));
        await new DatabaseClockCheck(skewed).onApplicationBootstrap();
        expect(queries).toHaveLength(1);
      }
      expect(errors).toHaveBeenCalledTimes(3);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(/^Payment attempt times: .*60 minutes behind/);
      errors.mockClear();
      const { connection: same } = connection('postgres', new Date());
      await new DatabaseClockCheck(same).onApplicationBootstrap();
      for (const type of ['sqljs', 'sqlite', 'better-sqlite3']) {
        const { connection: utc, queries } = connection(type, new Date(0));
        await new DatabaseClockCheck(utc).onApplicationBootstrap();
        expect(queries).toEqual([]);
      }
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
