import { Refund, RequestContext } from '@vendure/core';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewaykitRefundIntent } from '../src/entity/refund-intent.entity';
import { RefundIntents } from '../src/service/refund-intents';

/**
 * Against a real sql.js database with the intent entity (docs/safety-rules.md#refund-intents): which
 * intents block a payment's refunds, and what may end one.
 */
describe('RefundIntents', () => {
  let db: DataSource;
  let intents: RefundIntents;
  const ctx = RequestContext.empty();
  const intent = (merTrackNo: string, paymentId = '7') => ({
    merTrackNo,
    paymentId,
    orderId: '10',
    refundAmount: '5.00',
    currency: 'USD',
  });
  let savedRefunds: { metadata: { merTrackNo: string } }[] = [];
  const refundEvent = (merTrackNo: string, status: 'succeeded' | 'failed') =>
    ({ kind: 'refund', merTrackNo, status }) as never;

  beforeAll(async () => {
    db = new DataSource({ type: 'sqljs', entities: [GatewaykitRefundIntent], synchronize: true });
    await db.initialize();
    intents = new RefundIntents(
      {
        rawConnection: db,
        // Vendure's Refund rows of a payment, as stillLost reads them; the intents are real rows.
        getRepository: (_ctx: unknown, entity: unknown) =>
          entity === Refund ? { find: async () => savedRefunds } : db.getRepository(GatewaykitRefundIntent),
      } as never,
      {} as never,
    );
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('a payment is blocked only by its own intents that no Refund holds by merTrackNo', async () => {
    await intents.record(ctx, intent('A-P7-R1'));
    await intents.record(ctx, intent('A-P7-R2'));
    await intents.record(ctx, intent('A-P8-R1', '8'));
    const refunds = [{ state: 'Settled', total: 500, metadata: { merTrackNo: 'A-P7-R1' } }];
    expect((await intents.unheld(ctx, 7, refunds)).map((row) => row.merTrackNo)).toEqual(['A-P7-R2']);
    expect((await intents.unheld(ctx, 8, [])).map((row) => row.merTrackNo)).toEqual(['A-P8-R1']);
    // The same merchant refund id is never written twice.
    await expect(intents.record(ctx, intent('A-P7-R2'))).rejects.toThrow();
  });

  it("the gateway's own answer ends an unanswered intent, and never replaces an answer", async () => {
    await intents.record(ctx, intent('B-P7-R1'));
    await intents.answered(ctx, 'B-P7-R1', 'refused');
    await intents.answered(ctx, 'B-P7-R1', 'failed');
    expect(
      (await db.getRepository(GatewaykitRefundIntent).findOneByOrFail({ merTrackNo: 'B-P7-R1' })).answer,
    ).toBe('refused');
  });

  it("a notice answers only the intent of its trade's payment, once; a later notice keeps the first answer", async () => {
    await intents.record(ctx, intent('C-P7-R1'));
    expect(await intents.answer(ctx, 8, refundEvent('C-P7-R1', 'succeeded'))).toBeUndefined();
    expect(await intents.answer(ctx, 7, refundEvent('NOT-SENT', 'succeeded'))).toBeUndefined();
    expect((await intents.answer(ctx, 7, refundEvent('C-P7-R1', 'failed')))?.answer).toBe('failed');
    expect((await intents.answer(ctx, 7, refundEvent('C-P7-R1', 'succeeded')))?.answer).toBe('failed');
  });

  it('an intent its Refund holds is marked recorded with it, and the run reads back only those nothing ended (numbered apart from those whose answer was lost)', async () => {
    await intents.record(ctx, intent('F-P7-R1'));
    await intents.record(ctx, intent('F-P7-R2'));
    await intents.record(ctx, intent('F-P7-R3'));
    await intents.numbered(ctx, 'F-P7-R1', 'B1');
    await intents.numbered(ctx, 'F-P7-R2', 'B2');
    await intents.held(ctx, 'F-P7-R1');
    const window = [new Date(Date.now() - 60_000), new Date(Date.now() + 60_000)] as const;
    const lost = (await intents.unanswered(...window, true, 10)).map((row) => row.merTrackNo);
    expect(lost).toContain('F-P7-R2');
    expect(lost).not.toContain('F-P7-R1');
    expect(lost).not.toContain('F-P7-R3');
    // Its answer lost too: no batchNo, listed apart (handed to a person, never read back).
    const unnumbered = (await intents.unanswered(...window, false, 10)).map((row) => row.merTrackNo);
    expect(unnumbered).toContain('F-P7-R3');
    expect(unnumbered).not.toContain('F-P7-R2');
    expect(await intents.unanswered(...window, false, 0)).toEqual([]);
    // Hand-overs take the newest first.
    await intents.record(ctx, intent('F-P7-R4'));
    await db
      .getRepository(GatewaykitRefundIntent)
      .update({ merTrackNo: 'F-P7-R4' }, { createdAt: new Date(Date.now() + 30_000) });
    const newest = await intents.unanswered(...window, false, 1, true);
    expect(newest.map((row) => row.merTrackNo)).toEqual(['F-P7-R4']);
    // A later answer never replaces `recorded`.
    await intents.answered(ctx, 'F-P7-R1', 'refused');
    expect(
      (await db.getRepository(GatewaykitRefundIntent).findOneByOrFail({ merTrackNo: 'F-P7-R1' })).answer,
    ).toBe('recorded');
  });

  it('the run marks recorded an intent a Refund holds after all (no RefundEvent came), never over another answer', async () => {
    await intents.record(ctx, intent('G-P7-R1'));
    await intents.record(ctx, intent('G-P7-R2'));
    await intents.answered(ctx, 'G-P7-R2', 'refused');
    await intents.recordedAfterAll('G-P7-R1');
    await intents.recordedAfterAll('G-P7-R2');
    expect(await intents.answerOf('G-P7-R1')).toBe('recorded');
    expect(await intents.answerOf('G-P7-R2')).toBe('refused');
    expect(await intents.answerOf('NOT-SENT')).toBeUndefined();
  });

  it('an intent is still lost, as the hand-over reads it under the lock, only while nothing answered it and no Refund holds it', async () => {
    await intents.record(ctx, intent('H-P7-R1'));
    const [lost] = (await intents.unheld(ctx, 7, [])).filter((row) => row.merTrackNo === 'H-P7-R1');
    if (!lost) throw new Error('intent H-P7-R1 not recorded');
    savedRefunds = [{ metadata: { merTrackNo: 'H-P7-R0' } }];
    expect(await intents.stillLost(ctx, lost)).toBe(true);
    savedRefunds = [{ metadata: { merTrackNo: 'H-P7-R1' } }];
    expect(await intents.stillLost(ctx, lost)).toBe(false);
    savedRefunds = [];
    await intents.close(ctx, lost);
    expect(await intents.stillLost(ctx, lost)).toBe(false);
  });

  it('an administrator closes an intent', async () => {
    await intents.record(ctx, intent('D-P9-R1', '9'));
    const [open] = await intents.unheld(ctx, 9, []);
    expect(open?.answer).toBeNull();
    await intents.close(ctx, open as GatewaykitRefundIntent);
    expect((await intents.unheld(ctx, 9, []))[0]?.answer).toBe('closed');
  });

  it('on a server database the intent is written outside the admin transaction, and gives up after 5 s without a connection', async () => {
    vi.useFakeTimers();
    try {
      const ownStatements: string[] = [];
      const waiting = new RefundIntents(
        {
          rawConnection: {
            options: { type: 'postgres' },
            getRepository: () => ({
              insert: (row: { merTrackNo: string }) => {
                ownStatements.push(row.merTrackNo);
                // A pool with no connection to give: the write never starts.
                return new Promise(() => {});
              },
            }),
          },
          getRepository: () => {
            throw new Error('the admin transaction must not write the intent');
          },
        } as never,
        {} as never,
      );
      const recording = waiting.record(ctx, intent('E-P7-R1'));
      const outcome = expect(recording).rejects.toThrow('no database connection within 5 s');
      await vi.advanceTimersByTimeAsync(5_000);
      await outcome;
      expect(ownStatements).toEqual(['E-P7-R1']);
    } finally {
      vi.useRealTimers();
    }
  });
});
