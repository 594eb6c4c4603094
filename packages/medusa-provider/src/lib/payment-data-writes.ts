import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import type { GatewayChargeback, GatewayRefund } from './gateway-records';

/**
 * Every write of a Medusa payment's `data` the plugin makes, one statement each, changing only what it
 * names, computed by PostgreSQL from the row as it is when the statement runs (README, "The payment's
 * data is written in place"). The data has writers that hold no common lock (a refund's entry written
 * before its request leaves, docs/safety-rules.md#refund-intents; the held-payment mark; Medusa's own
 * write of a refund's answer), so a whole copy read earlier and written back would erase whatever another
 * one stored in between: a refund the gateway made could then leave no trace, and be made again. What to
 * write is decided by the callers.
 */

type ListKey = 'refunds' | 'chargebacks' | 'refundedAtGateway';

/** Only on a payment whose data has a refunds list. */
const REFUNDS_LISTED = `jsonb_typeof(data->'refunds') = 'array'`;

/** The payment data's list at `key`; an empty one when it has none. */
function listAt(key: ListKey): string {
  return `(CASE WHEN jsonb_typeof(data->'${key}') = 'array' THEN data->'${key}' ELSE '[]'::jsonb END)`;
}

/** How two items of a list are told apart: an SQL text of `item`, one jsonb element. */
type Identity = (item: string) => string;

const BY_MER_TRACK_NO: Identity = (item) => `(${item}->>'merTrackNo')`;

/** A plain string item. */
const BY_VALUE: Identity = (item) => `(${item} #>> '{}')`;

/** The fields core's chargebackKey joins for a chargeback without a batchNo, in its order. */
const CHARGEBACK_KEY_FIELDS = ['tradeNo', 'amount', 'currency', 'noticeDate', 'reason'];

/** Core's chargebackKey in SQL: the gateway's batchNo, else the chargeback's fields joined by `|`. */
const BY_CHARGEBACK_KEY: Identity = (item) => {
  const fields = CHARGEBACK_KEY_FIELDS.map((field) => `coalesce(${item}->>'${field}', '')`);
  return `coalesce(nullif(${item}->>'batchNo', ''), concat_ws('|', ${fields.join(', ')}))`;
};

/**
 * The list at `key` with the items of the bound array (`?`) added at its end, each only when no item
 * stored (nor an earlier one of the array) has its identity: a repeat adds nothing.
 */
function addingMissing(key: ListKey, identity: Identity): string {
  return `${listAt(key)} || coalesce((
      SELECT jsonb_agg(adding.item ORDER BY adding.place)
        FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS adding(item, place)
       WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${listAt(key)}) AS stored(item)
                          WHERE ${identity('stored.item')} = ${identity('adding.item')})
         AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS earlier(item, place)
                          WHERE earlier.place < adding.place
                            AND ${identity('earlier.item')} = ${identity('adding.item')})), '[]'::jsonb)`;
}

/**
 * The refunds, in their order, with the entry of merTrackNo `?` replaced by `replacement` (SQL of
 * `entry`, the entry as stored), or left out when `replacement` is null; the others as they are.
 */
function refundsReplacing(replacement: string): string {
  return `(SELECT coalesce(jsonb_agg(listed.changed ORDER BY listed.place)
                             FILTER (WHERE listed.changed IS NOT NULL), '[]'::jsonb)
             FROM (SELECT place,
                          CASE WHEN entry->>'merTrackNo' = ? THEN ${replacement} ELSE entry END AS changed
                     FROM jsonb_array_elements(${listAt('refunds')}) WITH ORDINALITY AS refund(entry, place)
                  ) AS listed)`;
}

export class PaymentDataWrites {
  constructor(private readonly db: Pick<SqlDatabase, 'raw'>) {}

  /** Through the store's database, as Medusa gives it to the container. */
  static of(scope: MedusaContainer): PaymentDataWrites {
    return new PaymentDataWrites(scope.resolve(ContainerRegistrationKeys.PG_CONNECTION) as SqlDatabase);
  }

  /**
   * Adds the refunds whose merTrackNo the payment does not list yet; false when no such payment row
   * (not deleted) exists.
   */
  async addRefunds(paymentId: string, entries: readonly GatewayRefund[]): Promise<boolean> {
    return this.addMissing(paymentId, 'refunds', BY_MER_TRACK_NO, entries);
  }

  /** Stores `entry` as the payment's refund of its merTrackNo: replaces the one listed, else adds it. */
  async putRefund(paymentId: string, entry: GatewayRefund): Promise<void> {
    await this.putRefundWhere(paymentId, entry, '?::jsonb');
  }

  /**
   * The answer of a refund request on its entry: replaces it while it still waits for the answer
   * (`sending`), so a notice that settled it meanwhile stays; adds it when the entry is gone (a whole
   * write of another refund's answer erased it). Written before Medusa's own write of the answer, which
   * deletes the refund row when it fails: the entry then still says what the gateway answered.
   */
  async answerSending(paymentId: string, entry: GatewayRefund): Promise<void> {
    await this.putRefundWhere(
      paymentId,
      entry,
      `CASE WHEN entry->'sending' = 'true'::jsonb THEN ?::jsonb ELSE entry END`,
    );
  }

  /** putRefund, the listed entry replaced by `replacement` (SQL of `entry`, binding the new entry once). */
  private async putRefundWhere(paymentId: string, entry: GatewayRefund, replacement: string): Promise<void> {
    const listed = `EXISTS (SELECT 1 FROM jsonb_array_elements(${listAt('refunds')}) AS stored(entry)
                             WHERE stored.entry->>'merTrackNo' = ?)`;
    const json = JSON.stringify(entry);
    await this.set(
      paymentId,
      'refunds',
      `CASE WHEN ${listed} THEN ${refundsReplacing(replacement)} ELSE ${listAt('refunds')} || jsonb_build_array(?::jsonb) END`,
      [entry.merTrackNo, entry.merTrackNo, json, json],
    );
  }

  /** Takes the refund of `merTrackNo` out of the payment's refunds. */
  async removeRefund(paymentId: string, merTrackNo: string): Promise<void> {
    await this.set(paymentId, 'refunds', refundsReplacing('NULL'), [merTrackNo], REFUNDS_LISTED);
  }

  /** Notes on the refund of `merTrackNo` when it was reported unsettled; one noted earlier stays. */
  async markRefundAlerted(paymentId: string, merTrackNo: string, at: string): Promise<void> {
    await this.set(
      paymentId,
      'refunds',
      refundsReplacing(
        `entry || jsonb_build_object('alertedAt', coalesce(entry->'alertedAt', to_jsonb(?::text)))`,
      ),
      [merTrackNo, at],
      REFUNDS_LISTED,
    );
  }

  /** Adds the chargeback unless one with its key (core's chargebackKey) is stored already. */
  async addChargeback(paymentId: string, chargeback: GatewayChargeback): Promise<void> {
    await this.addMissing(paymentId, 'chargebacks', BY_CHARGEBACK_KEY, [chargeback]);
  }

  /** Adds the keys (batchNo, else merTrackNo) of refunds made at the gateway that are not kept yet. */
  async addUncountedRefunds(paymentId: string, keys: readonly string[]): Promise<void> {
    await this.addMissing(paymentId, 'refundedAtGateway', BY_VALUE, keys);
  }

  /** Marks a held payment alerted (PAID BUT NOT APPLIED, lib/held-payment.ts); a mark already there stays. */
  async markHeldAlerted(paymentId: string, at: string): Promise<void> {
    await this.set(
      paymentId,
      'heldAlertedAt',
      'to_jsonb(?::text)',
      [at],
      `coalesce(data->'heldAlertedAt', 'null'::jsonb) = 'null'::jsonb`,
    );
  }

  /** `items` added to the list at `key` unless one of the same `identity` is there (addingMissing). */
  private addMissing(
    paymentId: string,
    key: ListKey,
    identity: Identity,
    items: readonly unknown[],
  ): Promise<boolean> {
    const json = JSON.stringify(items);
    return this.set(paymentId, key, addingMissing(key, identity), [json, json]);
  }

  /**
   * One statement setting the data's `key` to `value` (SQL over the row's `data`, its bindings first),
   * the rest of the data as it is, on the payment's row when it is not deleted and meets `condition`.
   * A `value` that comes out SQL NULL keeps the key as it was: jsonb_set would make the whole data NULL.
   * Whether a row was written.
   */
  private async set(
    paymentId: string,
    key: ListKey | 'heldAlertedAt',
    value: string,
    bindings: readonly unknown[],
    condition = 'TRUE',
  ): Promise<boolean> {
    const { rows } = await this.db.raw(
      `UPDATE payment
          SET data = jsonb_set(coalesce(data, '{}'::jsonb), '{${key}}', coalesce(${value}, data->'${key}', 'null'::jsonb)),
              updated_at = now()
        WHERE id = ? AND deleted_at IS NULL AND ${condition}
        RETURNING id`,
      [...bindings, paymentId],
    );
    return rows.length === 1;
  }
}
