import { chargeStateOf, firstCartHolder, type StoredSessions } from './open-charges';
import type { GatewaykitSessionData } from './session-data';

/**
 * Who may send a session's one money-moving request (docs/safety-rules.md#dedupe-and-locking): the
 * caller that marks the session "sent" (`attemptedAt`) in the database while no other gatewaykit
 * session of its payment collection has an open charge. Decided in the database, never in process
 * memory, so two server instances (or a server that died after claiming) behave as one.
 *
 * - `claimed`: this caller marked the session and sends the request;
 * - `taken`: the session was already sent (by another request, on any instance): do not send; its
 *   stored data is returned so the caller answers with what is known;
 * - `sibling-open`: another session of the same cart may have taken money: nothing is sent.
 */
export type ChargeClaim =
  | { kind: 'claimed' }
  | { kind: 'taken'; data: Partial<GatewaykitSessionData> }
  | { kind: 'sibling-open'; orderNo: string };

export interface ChargeClaims {
  claim(orderNo: string, attemptedAt: string): Promise<ChargeClaim>;
}

/** A Postgres transaction as knex gives it (Medusa's `__pg_connection__`): only `raw` is used. */
interface SqlRunner {
  raw(sql: string, bindings: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}
export interface SqlDatabase extends SqlRunner {
  transaction<T>(work: (trx: SqlRunner) => Promise<T>): Promise<T>;
}

type SessionRow = { id: string; provider_id: string; data: Record<string, unknown> | null };

/** A session whose charge is sent or decided: nobody sends it again. */
function alreadySent(data: Partial<GatewaykitSessionData>): boolean {
  return chargeStateOf(data) !== 'not-sent';
}

/**
 * The claim in one short Postgres transaction on the payment module's own tables: the payment
 * collection's row is locked (`FOR UPDATE`), so claims of sessions of one cart are serialised on every
 * instance; the session and its siblings are read after the lock, and the mark is written before the
 * commit. The lock is held for three statements, never across the gateway request: what makes the
 * request exclusive is the committed mark, which every later claim reads.
 */
export class PostgresChargeClaims implements ChargeClaims {
  constructor(private readonly db: SqlDatabase) {}

  claim(orderNo: string, attemptedAt: string): Promise<ChargeClaim> {
    return this.db.transaction(async (trx) => {
      const locked = await trx.raw(
        `SELECT c.id FROM payment_collection c
           JOIN payment_session s ON s.payment_collection_id = c.id
          WHERE s.id = ? FOR UPDATE OF c`,
        [orderNo],
      );
      const collectionId = locked.rows[0]?.id;
      if (typeof collectionId !== 'string') {
        throw new Error(`gatewaykit: payment session ${orderNo} does not exist; nothing was sent`);
      }
      const { rows } = await trx.raw(
        `SELECT id, provider_id, data FROM payment_session
          WHERE payment_collection_id = ? AND deleted_at IS NULL`,
        [collectionId],
      );
      const sessions = rows as SessionRow[];
      const self = sessions.find((row) => row.id === orderNo);
      const stored = (self?.data ?? {}) as Partial<GatewaykitSessionData>;
      if (!self || alreadySent(stored)) return { kind: 'taken', data: stored };
      const open = firstCartHolder(sessions, orderNo)?.id;
      if (open) return { kind: 'sibling-open', orderNo: open };
      await trx.raw(
        `UPDATE payment_session SET data = data || jsonb_build_object('attemptedAt', ?::text), updated_at = now()
          WHERE id = ?`,
        [attemptedAt, orderNo],
      );
      return { kind: 'claimed' };
    });
  }
}

/**
 * Without a database connection (unit tests with the payment module's session service only): the same
 * decision read and written through the service, not atomic across callers. Medusa always gives
 * providers `__pg_connection__`, so a running store uses PostgresChargeClaims.
 */
export class SessionServiceChargeClaims implements ChargeClaims {
  constructor(private readonly sessions: StoredSessions) {}

  async claim(orderNo: string, attemptedAt: string): Promise<ChargeClaim> {
    const self = await this.sessions.retrieve(orderNo, { select: ['data', 'payment_collection_id'] });
    const stored = (self.data ?? {}) as Partial<GatewaykitSessionData>;
    if (alreadySent(stored)) return { kind: 'taken', data: stored };
    if (self.payment_collection_id) {
      const siblings = await this.sessions.list(
        { payment_collection_id: self.payment_collection_id },
        { select: ['id', 'provider_id', 'data'] },
      );
      const open = firstCartHolder(siblings, orderNo)?.id;
      if (open) return { kind: 'sibling-open', orderNo: open };
    }
    await this.sessions.update({ id: orderNo, data: { ...self.data, attemptedAt } });
    return { kind: 'claimed' };
  }
}
