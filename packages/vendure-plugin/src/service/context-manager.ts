import type { RequestContext } from '@vendure/core';
// Where Vendure keeps a context's EntityManager: TransactionalConnection.getRepository(ctx, …) reads it,
// withTransaction(ctx, …) runs on its query runner, and the EventBus waits for that runner's commit.
// Not re-exported by @vendure/core's index; the vendure-plugin tests `one-connection.test.ts` and
// `refund-lifecycle.test.ts` fail if a Vendure version moves it.
import { TRANSACTION_MANAGER_KEY } from '@vendure/core/dist/common/constants';
import type { EntityManager } from 'typeorm';

type WithManager = Record<symbol, EntityManager | undefined>;

/** The EntityManager a context runs its queries on: set inside a transaction or a phase, else none. */
export function contextManagerOf(ctx: RequestContext): EntityManager | undefined {
  return (ctx as unknown as WithManager)[TRANSACTION_MANAGER_KEY];
}

/** Makes every query through `ctx` run on `manager` (a copy of a context, never a shared one). */
export function setContextManager(ctx: RequestContext, manager: EntityManager): void {
  (ctx as unknown as WithManager)[TRANSACTION_MANAGER_KEY] = manager;
}
