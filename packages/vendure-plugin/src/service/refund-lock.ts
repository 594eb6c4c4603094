import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  EventBus,
  type ID,
  Logger,
  Refund,
  RefundEvent,
  type RequestContext,
  TransactionalConnection,
  TransactionSubscriber,
} from '@vendure/core';
import { loggerCtx } from '../constants';
import { lockOrderRow, queued, readingCommitted, singleConnection } from './attempt-lock';
import { contextManagerOf } from './context-manager';

/**
 * The refund section of one payment: a gateway refund is numbered, checked against what is left and
 * sent by one admin request at a time per payment, and the next one starts only once the Refund the
 * previous one numbered is saved. Vendure's createRefund reads the payment's refunds without a lock
 * before it asks the handler, so two refunds at once would both count the same refunds, get the same
 * merchant refund id, and the gateway would answer both with its one refund
 * (docs/safety-rules.md, "Dedupe and locking": the database's locks, never process memory).
 *
 * - Server databases (PostgreSQL, MySQL/MariaDB): a row lock on the payment's order (`FOR NO KEY
 *   UPDATE` on PostgreSQL, `FOR UPDATE` on MySQL) in the admin request's own transaction (refundOrder
 *   runs in one), held until that transaction commits,
 *   that is after Vendure saved the Refund. The order's row, not the payment's: one refundOrder may
 *   refund several payments of the order in its one transaction, starting from the payment it names,
 *   and two admins starting from different payments would take payment rows in opposite orders and
 *   deadlock; the order's row is one lock, taken again at no cost by the same transaction. The
 *   payment's refunds are then read again: on PostgreSQL (READ
 *   COMMITTED, Vendure's default) a plain read sees the rows committed while it waited, and takes no
 *   lock a refund notice updating an earlier Refund of the payment would wait for; elsewhere (MySQL's
 *   REPEATABLE READ, where a plain read sees the snapshot Vendure's own read opened before the handler
 *   ran) a shared locking read, the only read there that sees them.
 * - sql.js / SQLite: one process, one connection (attempt-lock.ts), no row locks. The sections of a
 *   payment queue in a lane of the attempt sections' queue, and each holds its lane until Vendure has
 *   saved its Refund (the `RefundEvent` Vendure publishes right after saving it, inside the request),
 *   the admin transaction ended, or `maxHoldMs` passed, whichever is first. On that one connection the
 *   next section's read sees the saved Refund whether or not it is committed yet.
 */
@Injectable()
export class RefundLock implements OnApplicationBootstrap {
  /** Embedded databases: the longest a section holds its payment's lane after its work ended. */
  maxHoldMs = 15_000;

  /** Embedded databases: the release of the section holding each payment's lane, by payment id. */
  private readonly holds = new Map<string, () => void>();

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly transactions: TransactionSubscriber,
    private readonly eventBus: EventBus,
  ) {}

  onApplicationBootstrap(): void {
    // Blocking: runs inside the admin request right after the Refund row was saved, before its commit.
    this.eventBus.registerBlockingEventHandler({
      event: RefundEvent,
      id: 'gatewaykit-refund-lock',
      handler: (event) => {
        const paymentId = event.refund.payment?.id ?? event.refund.paymentId;
        if (paymentId !== undefined && paymentId !== null) this.release(String(paymentId));
      },
    });
  }

  /**
   * Runs `work` in the refund section of the payment `paymentId` of order `orderId`, with the payment's
   * refunds as the database has them once the section is entered. `ctx` is the admin request's (its
   * transaction).
   */
  async forPayment<T>(
    ctx: RequestContext,
    { paymentId, orderId }: { paymentId: ID; orderId: ID },
    work: (refunds: readonly Refund[]) => Promise<T>,
  ): Promise<T> {
    const dataSource = this.connection.rawConnection;
    if (!singleConnection(dataSource)) return work(await this.lockedRefunds(ctx, paymentId, orderId));
    const key = String(paymentId);
    return new Promise<T>((resolve, reject) => {
      void queued(
        dataSource,
        async () => {
          let result: T;
          try {
            result = await work(await this.refundsOf(ctx, paymentId));
          } catch (error) {
            reject(error);
            return;
          }
          // Held before the caller gets the result: Vendure saves the Refund only after that.
          const saved = this.hold(key, ctx);
          resolve(result);
          await saved;
        },
        `refunds:${key}`,
      );
    });
  }

  private async lockedRefunds(ctx: RequestContext, paymentId: ID, orderId: ID): Promise<Refund[]> {
    if (!contextManagerOf(ctx)?.queryRunner?.isTransactionActive) {
      // Vendure's refundOrder always runs in a transaction; without one the lock ends with its statement.
      Logger.warn(`refund of payment ${paymentId} outside a transaction: not serialised`, loggerCtx);
    }
    // Rows that only reference the order (notes, history entries) go on while the refund waits for the
    // gateway (lockOrderRow's FOR NO KEY UPDATE).
    await lockOrderRow(this.connection, ctx, orderId);
    const refunds = this.connection
      .getRepository(ctx, Refund)
      .createQueryBuilder('refund')
      .where('refund.paymentId = :id', { id: paymentId })
      .orderBy('refund.id', 'ASC');
    return readingCommitted(refunds, this.connection.rawConnection).getMany();
  }

  private refundsOf(ctx: RequestContext, paymentId: ID): Promise<Refund[]> {
    return this.connection.getRepository(ctx, Refund).find({ where: { paymentId }, order: { id: 'ASC' } });
  }

  /** Resolves when the Refund numbered in this section is saved, its transaction ended, or at the bound. */
  private hold(key: string, ctx: RequestContext): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => release(), this.maxHoldMs);
      timer.unref?.();
      const release = () => {
        clearTimeout(timer);
        if (this.holds.get(key) === release) this.holds.delete(key);
        resolve();
      };
      this.holds.set(key, release);
      const runner = contextManagerOf(ctx)?.queryRunner;
      if (runner?.isTransactionActive) this.transactions.awaitRelease(runner).then(release, release);
    });
  }

  private release(key: string): void {
    this.holds.get(key)?.();
  }
}
