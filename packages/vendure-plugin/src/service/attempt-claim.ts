import { type DeepPartial, IsNull, QueryFailedError, type Repository } from 'typeorm';
import { GatewaykitPaymentAttempt, OPEN_SLOT } from '../entity/payment-attempt.entity';
import { attemptClockNow } from './attempt-clock';

/**
 * The per-order charge claim, held in the database so it works across server instances and survives
 * a crash: a new attempt row is inserted holding the order's one open slot (unique index on
 * orderId + openSlot). A second insert for an order with an open attempt fails in the database,
 * whatever process sends it, so only one attempt at a time can reach the gateway.
 */

/** How long an open gateway page blocks the order (the gateway's pages expire sooner). */
export const OPEN_ATTEMPT_BLOCK_MS = 30 * 60 * 1000;

/**
 * How long another method's hold (other-method-hold.ts) outlives the request that took it: only a
 * request killed mid-payment leaves one behind, and a payment handler answers well within this.
 */
export const OTHER_METHOD_HOLD_MS = 5 * 60 * 1000;

export type ClaimResult =
  | { claimed: true; attempt: GatewaykitPaymentAttempt }
  /** Another attempt holds the order (`open` is it, when it can still be read). */
  | { claimed: false; open: GatewaykitPaymentAttempt | undefined };

type NewAttempt = Omit<
  DeepPartial<GatewaykitPaymentAttempt>,
  'id' | 'status' | 'openSlot' | 'version' | 'createdAt' | 'updatedAt'
> & { orderId: string; orderNo: string };

/**
 * Inserts the attempt as `started` (a gateway attempt) or `held` (another method's payment) holding
 * the order's open slot, or reports who holds it.
 */
export async function claimOpenSlot(
  repo: Repository<GatewaykitPaymentAttempt>,
  fields: NewAttempt,
  status: 'started' | 'held' = 'started',
): Promise<ClaimResult> {
  try {
    await repo.insert({
      tradeNo: null,
      maskCardNo: null,
      message: null,
      ...fields,
      status,
      openSlot: OPEN_SLOT,
      version: 0,
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const open = await repo.findOne({ where: { orderId: fields.orderId, openSlot: OPEN_SLOT } });
    return { claimed: false, open: open ?? undefined };
  }
  return { claimed: true, attempt: await repo.findOneOrFail({ where: { orderNo: fields.orderNo } }) };
}

/**
 * Frees the slot of redirect attempts older than the block window: the shopper never paid on a page
 * that has expired since. Their rows stay, so a late gateway answer is still recorded (or flagged).
 * `started`, `pending` and `unknown` attempts may have taken money and keep blocking until the
 * gateway's answer arrives (docs/SECURITY.md, exactly once): a second charge is worse than a wait.
 * Another method's hold left by a killed request is freed after OTHER_METHOD_HOLD_MS.
 */
export async function releaseDeadClaims(
  repo: Repository<GatewaykitPaymentAttempt>,
  orderId: string,
  now: number = attemptClockNow(),
  blockMs: number = OPEN_ATTEMPT_BLOCK_MS,
): Promise<number> {
  const open = await repo.find({ where: { orderId, openSlot: OPEN_SLOT } });
  let released = 0;
  for (const attempt of open) {
    const dead =
      (attempt.status === 'redirect' && now - attempt.createdAt.getTime() >= blockMs) ||
      isDeadHold(attempt, now);
    if (!dead) continue;
    released += await conditionalUpdate(repo, attempt, { openSlot: null });
  }
  return released;
}

/** Another method's hold left by a request killed mid-payment: older than OTHER_METHOD_HOLD_MS. */
export function isDeadHold(attempt: GatewaykitPaymentAttempt, now: number = attemptClockNow()): boolean {
  return attempt.status === 'held' && now - attempt.createdAt.getTime() >= OTHER_METHOD_HOLD_MS;
}

/**
 * An attempt refused before anything was sent (validation): final `failed` without a charge, and the
 * order's slot is free again. Only the writer holding the version it read changes it.
 */
export async function closeUnsent(
  repo: Repository<GatewaykitPaymentAttempt>,
  attempt: GatewaykitPaymentAttempt,
  reason: string,
): Promise<boolean> {
  const changed = await conditionalUpdate(repo, attempt, {
    status: 'failed',
    message: reason.slice(0, 500),
    openSlot: null,
  });
  return changed === 1;
}

/** Changes the attempt only if it still has the version it was read with; 1 when it did. */
export async function conditionalUpdate(
  repo: Repository<GatewaykitPaymentAttempt>,
  attempt: GatewaykitPaymentAttempt,
  changes: Partial<Pick<GatewaykitPaymentAttempt, 'status' | 'message' | 'openSlot'>>,
): Promise<number> {
  const result = await repo
    .createQueryBuilder()
    .update(GatewaykitPaymentAttempt)
    .set({ ...changes, version: attempt.version + 1 })
    .where('id = :id AND version = :version', { id: attempt.id, version: attempt.version })
    .execute();
  return result.affected ?? 0;
}

/**
 * Marks the attempt's money as given back at the gateway (`what`: how), once: the first mark stays. Bumps
 * the version, so an outcome saved from an earlier read is decided again and sees it.
 */
export async function markReturnedAtGateway(
  repo: Repository<GatewaykitPaymentAttempt>,
  attemptId: string | number,
  what: string,
): Promise<void> {
  await repo
    .createQueryBuilder()
    .update(GatewaykitPaymentAttempt)
    .set({ returnedAtGateway: what.slice(0, 200), version: () => 'version + 1' })
    // The object form: TypeORM quotes the camel-case column (PostgreSQL folds unquoted names).
    .where({ id: attemptId, returnedAtGateway: IsNull() })
    .execute();
}

/** Unique-constraint violations of SQLite/sql.js, PostgreSQL and MySQL/MariaDB. */
function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: unknown } | undefined;
  const code = driverError?.code;
  return (
    code === '23505' ||
    code === 'ER_DUP_ENTRY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    /UNIQUE constraint failed|duplicate key|Duplicate entry/i.test(error.message)
  );
}
