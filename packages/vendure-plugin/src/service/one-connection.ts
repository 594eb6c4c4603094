import { Logger, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { singleConnection } from './attempt-lock';
import { contextManagerOf, setContextManager } from './context-manager';

/**
 * Runs `work` with every query it makes through the context it is given on one pooled database
 * connection (docs/performance.md, "Vendure: pay one order", the connection pool). Nothing else changes: no transaction is
 * opened, each statement commits on its own as before, and a `withTransaction` inside runs its
 * transaction on that same connection and commits it when it ends. What it saves is the pool: a
 * request that makes a dozen separate reads and writes waits for a free connection once, not a dozen
 * times behind other requests' transactions when the pool is busy.
 *
 * Used per phase of a request, never across a call to the gateway: the connection goes back to the
 * pool before the charge is sent. Whatever else runs inside a phase holds it too (an eligibility
 * checker, a refund notice waiting for its refund's commit, gateway-notice.service.ts), as Vendure's
 * own mutations hold theirs. Work started inside that must outlive it (or run concurrently with a
 * transaction in it) takes the outer context, not this one. On an embedded database (one connection)
 * and inside a context that already has a transaction or phase, it is `work(ctx)`.
 */
export async function onOneConnection<T>(
  connection: TransactionalConnection,
  ctx: RequestContext,
  work: (ctx: RequestContext) => Promise<T>,
): Promise<T> {
  if (singleConnection(connection.rawConnection) || contextManagerOf(ctx)) return work(ctx);
  const runner = connection.rawConnection.createQueryRunner();
  const phase = ctx.copy();
  setContextManager(phase, runner.manager);
  try {
    return await work(phase);
  } finally {
    // Every withTransaction inside is awaited and ends its transaction; should one still be open (work
    // left running), it is rolled back, never handed to the pool's next user half done.
    if (runner.isTransactionActive) {
      Logger.error('a transaction was still open at the end of a request phase; rolled back', loggerCtx);
      await runner.rollbackTransaction().catch(() => undefined);
    }
    await runner.release();
  }
}
