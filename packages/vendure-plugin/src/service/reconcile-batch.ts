import { Between, In, type Repository } from 'typeorm';
import {
  type AttemptStatus,
  type GatewaykitPaymentAttempt,
  OWED_STATUSES,
} from '../entity/payment-attempt.entity';

export interface ReconcileBatchSettings {
  now: number;
  afterMs: number;
  maxAgeMs: number;
  batchSize: number;
  /** Only this channel's attempts (the Admin API mutation); all channels when undefined. */
  channelId?: string | undefined;
}

/**
 * The attempts one reconciliation run reads, as two batches of at most `batchSize` each, so abandoned
 * gateway pages (which the gateway lists as pending for ever, so they stay `redirect` until they age
 * out) can never crowd out the attempts that block an order or may hold paid money:
 * - owed attempts (started, pending, unknown), those waiting longest for a read first: the run moves
 *   each one it read to the back (`movedToBackOfBatch`), so attempts that stay owed run after run (the
 *   gateway acknowledged them but lists no record, a card or local payment pending for days) cannot
 *   fill every batch and keep a newer one, whose success callback was lost, from ever being read;
 * - gateway pages, newest first: a page opened lately is the one a shopper may just have paid on (a
 *   page read once it has expired ends, so pages do not stay in the way).
 */
export async function attemptsToReconcile(
  repo: Repository<GatewaykitPaymentAttempt>,
  settings: ReconcileBatchSettings,
): Promise<GatewaykitPaymentAttempt[]> {
  const { now, afterMs, maxAgeMs, batchSize, channelId } = settings;
  const where = {
    createdAt: Between(new Date(now - maxAgeMs), new Date(now - afterMs)),
    ...(channelId === undefined ? {} : { channelId }),
  };
  const owed = await repo.find({
    where: { ...where, status: In([...OWED_STATUSES]) },
    // `updatedAt`: the attempt's last change, or the last run that read it (movedToBackOfBatch).
    order: { updatedAt: 'ASC', createdAt: 'ASC', id: 'ASC' },
    take: batchSize,
  });
  const pages = await repo.find({
    where: { ...where, status: 'redirect' as AttemptStatus },
    order: { createdAt: 'DESC', id: 'DESC' },
    take: batchSize,
  });
  return [...owed, ...pages];
}

/**
 * Puts an owed attempt the run has just read behind every attempt that waits longer for a read: its
 * `updatedAt` becomes now, on the database's clock as every write of the row sets it. One row per
 * statement, committed at once: the run holds no row lock a recording of another attempt could wait on.
 */
export async function movedToBackOfBatch(
  repo: Repository<GatewaykitPaymentAttempt>,
  id: GatewaykitPaymentAttempt['id'],
): Promise<void> {
  const now = databaseNow(repo.manager.connection.options.type);
  await repo
    .createQueryBuilder()
    .update()
    .set({ updatedAt: () => now })
    .where('id = :id', { id })
    .execute();
}

/**
 * The database's now, to the millisecond or finer: SQLite's CURRENT_TIMESTAMP has whole seconds, so
 * attempts read in the same second as another was written would tie, and ties go to the oldest.
 * (SQLite compares these as text: '…:30' sorts before '…:30.250', as its time does.)
 */
function databaseNow(type: string): string {
  if (type === 'sqljs' || type === 'sqlite' || type === 'better-sqlite3') {
    return "STRFTIME('%Y-%m-%d %H:%M:%f', 'NOW')";
  }
  if (type === 'mysql' || type === 'mariadb') return 'CURRENT_TIMESTAMP(6)';
  return 'CURRENT_TIMESTAMP';
}

/**
 * How long past `maxAgeMs` an attempt (or a refund whose record was lost) still unsettled is looked for,
 * to hand it to a person once: a week, so runs missed for days (a worker down, an upgrade) still find
 * it. Each run reads those already handed over again and finds their note (OrderNotes.noteOnce); there
 * are few, all needing a person.
 */
export const AGED_OUT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Attempts that passed `maxAgeMs` still owed or on a gateway page, within a week of it (at most
 * `batchSize`, newest first: those said before stay listed until they leave the window, and must not
 * keep a new one from being said): the run no longer asks the gateway about them, and says so once on
 * their order (ReconcileService), so nothing that may hold money drops out of sight silently.
 */
export function agedOutAttempts(
  repo: Repository<GatewaykitPaymentAttempt>,
  settings: ReconcileBatchSettings,
): Promise<GatewaykitPaymentAttempt[]> {
  const { now, maxAgeMs, batchSize, channelId } = settings;
  return repo.find({
    where: {
      createdAt: Between(new Date(now - maxAgeMs - AGED_OUT_WINDOW_MS), new Date(now - maxAgeMs)),
      status: In([...OWED_STATUSES, 'redirect']),
      ...(channelId === undefined ? {} : { channelId }),
    },
    order: { createdAt: 'DESC', id: 'DESC' },
    take: batchSize,
  });
}
