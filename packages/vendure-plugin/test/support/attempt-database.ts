import { VendureEntity } from '@vendure/core';
import { DataSource, PrimaryGeneratedColumn, type Repository } from 'typeorm';
import { afterAll, beforeAll } from 'vitest';
import { GatewaykitPaymentAttempt } from '../../src/entity/payment-attempt.entity';

/**
 * A real sql.js database holding only the plugin's attempt entity: the unique (orderId, openSlot) index
 * is the database's, so claim tests prove what any number of server processes on one database see.
 */
export async function attemptDatabase(): Promise<{
  repo: Repository<GatewaykitPaymentAttempt>;
  close: () => Promise<void>;
}> {
  // Vendure assigns the id column at bootstrap; a bare DataSource needs it declared.
  PrimaryGeneratedColumn()(VendureEntity.prototype, 'id');
  const db = new DataSource({ type: 'sqljs', entities: [GatewaykitPaymentAttempt], synchronize: true });
  await db.initialize();
  return { repo: db.getRepository(GatewaykitPaymentAttempt), close: () => db.destroy() };
}

/** The database for one test file: opened before its tests, closed after them. */
export function useAttemptDatabase(): { repo: Repository<GatewaykitPaymentAttempt> } {
  const db = {} as { repo: Repository<GatewaykitPaymentAttempt> };
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ repo: db.repo, close } = await attemptDatabase());
  });
  afterAll(async () => {
    await close?.();
  });
  return db;
}
