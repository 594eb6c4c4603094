import { describe, expect, it } from 'vitest';
import type { GatewayRefund } from '../src/lib/gateway-records';
import { PaymentDataWrites } from '../src/lib/payment-data-writes';
import { RefundRecords } from '../src/lib/refund-records';

/**
 * What each writer sends: one statement on the payment's row, binding only what it changes (never a
 * copy of the data). What the statements do to real data, and that a writer racing another keeps both,
 * is shown on the store's Postgres (apps/medusa-store/test/payment-data-in-place.test.ts).
 */

/** A database that records each statement and answers with `rows`. */
function recordingDatabase(rows: Record<string, unknown>[] = [{ id: 'pay_1' }]) {
  const statements: { sql: string; bindings: readonly unknown[] }[] = [];
  const db = {
    async raw(sql: string, bindings: readonly unknown[]) {
      statements.push({ sql, bindings });
      return { rows };
    },
  };
  return { db, statements };
}

const entry: GatewayRefund = {
  merTrackNo: 'ref_1',
  amount: '5.00',
  currency: 'USD',
  refundType: '2',
  status: 'pending',
  requestedAt: '2026-11-28T10:00:00.000Z',
  batchNo: 'R1',
};

/** The one statement a write sent: an update of payment `pay_1` alone (its id bound last). */
function onlyStatement(statements: { sql: string; bindings: readonly unknown[] }[]) {
  expect(statements).toHaveLength(1);
  const [statement] = statements;
  expect(statement!.sql).toMatch(
    /^\s*UPDATE payment\s+SET data = jsonb_set\(coalesce\(data, '\{\}'::jsonb\), /,
  );
  expect(statement!.sql).toMatch(/WHERE id = \? AND deleted_at IS NULL/);
  expect(statement!.bindings.at(-1)).toBe('pay_1');
  // Placeholders and bindings match one for one (knex refuses a statement whose counts differ).
  expect(statement!.sql.split('?').length - 1).toBe(statement!.bindings.length);
  return statement!;
}

describe('payment data writers: one statement each, binding only what changes', () => {
  it('putRefund binds the entry (to replace the one of its merTrackNo, else to add), nothing else of the data', async () => {
    const { db, statements } = recordingDatabase();
    await new PaymentDataWrites(db).putRefund('pay_1', { ...entry, sending: undefined });
    const { sql, bindings } = onlyStatement(statements);
    expect(sql).toMatch(/'\{refunds\}'/);
    expect(bindings).toEqual(['ref_1', 'ref_1', JSON.stringify(entry), JSON.stringify(entry), 'pay_1']);
    // An entry no longer waiting for its answer is stored without the mark.
    expect(String(bindings[2])).not.toContain('sending');
  });

  it('addRefunds binds the entries to add; false when no payment row was written', async () => {
    const written = recordingDatabase();
    expect(await new PaymentDataWrites(written.db).addRefunds('pay_1', [entry])).toBe(true);
    const { sql, bindings } = onlyStatement(written.statements);
    expect(sql).toMatch(/'\{refunds\}'/);
    expect(bindings).toEqual([JSON.stringify([entry]), JSON.stringify([entry]), 'pay_1']);
    const none = recordingDatabase([]);
    expect(await new PaymentDataWrites(none.db).addRefunds('pay_1', [entry])).toBe(false);
  });

  it('markRefundAlerted binds the merTrackNo and the time; only on data that lists refunds', async () => {
    const { db, statements } = recordingDatabase();
    await new PaymentDataWrites(db).markRefundAlerted('pay_1', 'ref_1', '2026-11-28T12:00:00.000Z');
    const { sql, bindings } = onlyStatement(statements);
    expect(sql).toMatch(/coalesce\(entry->'alertedAt', to_jsonb\(\?::text\)\)/);
    expect(sql).toMatch(/AND jsonb_typeof\(data->'refunds'\) = 'array'/);
    expect(bindings).toEqual(['ref_1', '2026-11-28T12:00:00.000Z', 'pay_1']);
  });

  it('addChargeback binds the chargeback; addUncountedRefunds the keys; markHeldAlerted the time, only where unmarked', async () => {
    const { db, statements } = recordingDatabase();
    const writes = new PaymentDataWrites(db);
    const chargeback = { batchNo: 'CB1', amount: '10.00', currency: 'USD', receivedAt: 'now' };
    await writes.addChargeback('pay_1', chargeback);
    expect(onlyStatement(statements.splice(0)).bindings).toEqual([
      JSON.stringify([chargeback]),
      JSON.stringify([chargeback]),
      'pay_1',
    ]);
    await writes.addUncountedRefunds('pay_1', ['P1', 'P2']);
    const uncounted = onlyStatement(statements.splice(0));
    expect(uncounted.sql).toMatch(/'\{refundedAtGateway\}'/);
    expect(uncounted.bindings).toEqual(['["P1","P2"]', '["P1","P2"]', 'pay_1']);
    await writes.markHeldAlerted('pay_1', '2026-11-28T12:00:00.000Z');
    const held = onlyStatement(statements.splice(0));
    expect(held.sql).toMatch(/'\{heldAlertedAt\}', coalesce\(to_jsonb\(\?::text\), data->'heldAlertedAt'/);
    expect(held.sql).toMatch(/AND coalesce\(data->'heldAlertedAt', 'null'::jsonb\) = 'null'::jsonb/);
    expect(held.bindings).toEqual(['2026-11-28T12:00:00.000Z', 'pay_1']);
  });

  it("a refund's entry before sending, and its removal after a refusal, go through the same writers", async () => {
    const { db, statements } = recordingDatabase();
    const records = new RefundRecords(db);
    const sending = { ...entry, status: 'unknown' as const, batchNo: undefined, sending: true as const };
    expect(await records.recordSending('pay_1', sending)).toBe(true);
    expect(onlyStatement(statements.splice(0)).bindings).toEqual([
      JSON.stringify([sending]),
      JSON.stringify([sending]),
      'pay_1',
    ]);
    await records.dropRefused('pay_1', 'ref_1');
    const drop = onlyStatement(statements.splice(0));
    expect(drop.bindings).toEqual(['ref_1', 'pay_1']);
    expect(drop.sql).toMatch(/AND jsonb_typeof\(data->'refunds'\) = 'array'/);
  });
});
