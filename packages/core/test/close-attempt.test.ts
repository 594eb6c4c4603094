import { describe, expect, it } from 'vitest';
import { CLOSED_BY_MERCHANT, closeOpenAttempt, type PaymentOutcome, recordOutcome } from '../src/index.js';
import { MemoryAttempts } from './support/memory-attempts.js';

/** Attempt o-1 in memory, with `outcome` stored. */
class MemoryStore extends MemoryAttempts {
  constructor(outcome: PaymentOutcome | undefined) {
    super({ orderNo: 'o-1', orderAmount: '10.00', currency: 'USD' }, outcome);
  }
}

/** Sent an hour ago, against the ten minutes an attempt must wait before it may be closed. */
const SENT_LONG_AGO = { sentMsAgo: () => 3_600_000, closeAfterMs: 600_000 };

describe('closeOpenAttempt (a person closes what the reconciliation left open)', () => {
  it('an acknowledged attempt with no outcome yet: failed with the note, its order freed; a later success still wins', async () => {
    const store = new MemoryStore({ orderNo: 'o-1', status: 'pending', tradeNo: 'T1' });
    const closed = await closeOpenAttempt(
      store,
      'o-1',
      ' no charge in the portal on 2026-11-25 ',
      SENT_LONG_AGO,
    );
    expect(closed).toMatchObject({
      kind: 'closed',
      reason: 'closed by the merchant: no charge in the portal on 2026-11-25',
    });
    // Recorded without the note: the shopper can read the recorded reason, the note is the admin's.
    expect(store.outcome()).toEqual({
      orderNo: 'o-1',
      status: 'failed',
      reason: 'closed by the merchant',
      code: CLOSED_BY_MERCHANT,
    });
    expect(store.alerts).toEqual([]);
    await recordOutcome(store, { orderNo: 'o-1', status: 'succeeded', amount: '10.00', currency: 'USD' });
    expect(store.outcome()?.status).toBe('succeeded');
  });

  it('race: a pending callback recorded between the read and the record keeps the attempt open (no double charge)', async () => {
    const pending: PaymentOutcome = { orderNo: 'o-1', status: 'pending', tradeNo: 'T1' };
    const saved: PaymentOutcome[] = [];
    /** Read as unknown; the gateway's pending callback is recorded before the close gets the section. */
    class RacedStore extends MemoryStore {
      override async exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
        const seen = await this.find(orderNo);
        if (seen?.outcome?.status === 'unknown') this.attempts.set(orderNo, { ...seen, outcome: pending });
        return work();
      }
      override async save(stored: Parameters<MemoryStore['save']>[0], next: PaymentOutcome) {
        saved.push(next);
        return super.save(stored, next);
      }
    }
    const store = new RacedStore({ orderNo: 'o-1', status: 'unknown', reason: 'timeout' });
    const result = await closeOpenAttempt(store, 'o-1', 'no charge in the portal', SENT_LONG_AGO);
    expect(result).toEqual({
      kind: 'refused',
      reason:
        'payment attempt o-1 changed meanwhile: the gateway answered after it was read (now pending); look it up again',
    });
    expect(store.outcome()).toEqual(pending);
    expect(saved).toEqual([]);
    expect(store.alerts).toEqual([]);
  });

  it('attack: a paid or failed attempt is never closed, an unknown orderNo changes nothing, and a card number in the note is masked', async () => {
    const paid = new MemoryStore({ orderNo: 'o-1', status: 'succeeded', tradeNo: 'T1' });
    expect(await closeOpenAttempt(paid, 'o-1', 'refund it', SENT_LONG_AGO)).toEqual({
      kind: 'refused',
      reason: 'payment attempt o-1 is already succeeded',
    });
    expect(paid.outcome()?.status).toBe('succeeded');
    const failed = new MemoryStore({ orderNo: 'o-1', status: 'failed', reason: 'declined' });
    expect((await closeOpenAttempt(failed, 'o-1', 'again', SENT_LONG_AGO)).kind).toBe('refused');
    expect(await closeOpenAttempt(paid, 'o-2', 'x', SENT_LONG_AGO)).toEqual({
      kind: 'refused',
      reason: 'no payment attempt o-2',
    });
    // A gateway page may still be paid on: the reconciliation ends it once it has expired.
    const page = new MemoryStore({ orderNo: 'o-1', status: 'redirect', redirectUrl: 'https://gw/pay/1' });
    expect(await closeOpenAttempt(page, 'o-1', 'abandoned', SENT_LONG_AGO)).toEqual({
      kind: 'refused',
      reason: 'payment attempt o-1 is a gateway page: the reconciliation ends it once the page expires',
    });
    expect(page.outcome()?.status).toBe('redirect');

    const open = new MemoryStore(undefined);
    const closed = await closeOpenAttempt(
      open,
      'o-1',
      `card 4242424242424242 ${'x'.repeat(400)}`,
      SENT_LONG_AGO,
    );
    if (closed.kind !== 'closed') throw new Error(closed.reason);
    expect(closed.reason).not.toContain('4242424242424242');
    expect(closed.reason.length).toBeLessThanOrEqual('closed by the merchant: '.length + 200);
    expect((open.outcome() as { reason: string }).reason).toBe('closed by the merchant');
  });

  it('attack: an attempt sent moments ago is not closed (it may still take money); once old enough it is, and one never sent needs no wait', async () => {
    const store = new MemoryStore({ orderNo: 'o-1', status: 'unknown', reason: 'timeout' });
    const judged: string[] = [];
    const age = (sentMsAgo: number | undefined) => ({
      sentMsAgo: (attempt: { orderNo: string }) => {
        judged.push(attempt.orderNo);
        return sentMsAgo;
      },
      closeAfterMs: 600_000,
    });
    expect(await closeOpenAttempt(store, 'o-1', 'no charge yet', age(4_500))).toEqual({
      kind: 'refused',
      reason:
        "payment attempt o-1 was sent 4 s ago: its answer, the gateway's callbacks or the reconciliation may still settle it; it can be closed in 596 s, if it is still open then",
    });
    // A clock behind the database's (a negative age) is still too young.
    expect((await closeOpenAttempt(store, 'o-1', 'no charge yet', age(-2_000))).kind).toBe('refused');
    expect((await closeOpenAttempt(store, 'o-1', 'no charge yet', age(599_999))).kind).toBe('refused');
    expect(store.outcome()?.status).toBe('unknown');
    expect(judged).toEqual(['o-1', 'o-1', 'o-1']);

    expect((await closeOpenAttempt(store, 'o-1', 'no charge', age(600_000))).kind).toBe('closed');
    expect(store.outcome()?.status).toBe('failed');
    const neverSent = new MemoryStore(undefined);
    expect((await closeOpenAttempt(neverSent, 'o-1', 'never sent', age(undefined))).kind).toBe('closed');
  });

  it('race: a charge sent between the read (never sent) and the record is as young as any: not closed', async () => {
    const sentAt = new Map<string, number>();
    const saved: PaymentOutcome[] = [];
    /** Read before the charge's claim; the card charge is claimed and sent before the close gets the section. */
    class ChargedMeanwhile extends MemoryStore {
      override async exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
        sentAt.set(orderNo, Date.now() - 1_000);
        return work();
      }
      override async save(stored: Parameters<MemoryStore['save']>[0], next: PaymentOutcome) {
        saved.push(next);
        return super.save(stored, next);
      }
    }
    const store = new ChargedMeanwhile(undefined);
    const result = await closeOpenAttempt(store, 'o-1', 'no charge', {
      sentMsAgo: (attempt) => {
        const at = sentAt.get(attempt.orderNo);
        return at === undefined ? undefined : Date.now() - at;
      },
      closeAfterMs: 600_000,
    });
    expect(result.kind).toBe('refused');
    expect((result as { reason: string }).reason).toMatch(
      /^payment attempt o-1 was sent 1 s ago: .+ it can be closed in 599 s/,
    );
    expect(saved).toEqual([]);
    expect(store.outcome()).toBeUndefined();
  });
});
