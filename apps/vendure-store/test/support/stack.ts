import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, type SandboxOptions, startSandbox } from '@gatewaykit/sandbox';
import { DEMO_MERCHANTS } from '../../src/gateways';
import { GraphqlClient, loginAdmin } from '../../src/graphql-client';
import { type ServerProcess, startServerProcess } from './server-process';
import { copyTemplateDatabase } from './test-database';

export interface Stack {
  sandbox: Sandbox;
  server: ServerProcess;
  shopUrl: string;
  adminUrl: string;
  admin: GraphqlClient;
  /** Everything the store's database holds, as text (card-data checks). */
  databaseText(): Promise<string>;
  /** The PostgreSQL database the server runs on (GK_VENDURE_TEST_DB=postgres); undefined on sql.js. */
  databaseUrl: string | undefined;
  close(): Promise<void>;
}

/** A fresh sandbox + demo Vendure server (own copy of the populated database, test-database.ts) for one test file. */
export async function startStack(
  sandboxOptions: SandboxOptions = {},
  serverEnv: Record<string, string> = {},
): Promise<Stack> {
  const sandbox = await startSandbox({
    port: 0,
    merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp],
    ...sandboxOptions,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-test-'));
  const database = await copyTemplateDatabase(dir);
  const server = await startServerProcess({ ...serverEnv, ...database.env, GATEWAY_BASE_URL: sandbox.url });
  const adminUrl = `${server.baseUrl}/admin-api`;
  return {
    sandbox,
    server,
    shopUrl: `${server.baseUrl}/shop-api`,
    adminUrl,
    admin: await loginAdmin(adminUrl),
    databaseText: () => database.text(),
    databaseUrl: database.env.DATABASE_URL,
    async close() {
      await server.stop();
      await database.close();
      // Debugging aid: GK_SERVER_LOG_DIR=/some/dir keeps each server's log.
      if (process.env.GK_SERVER_LOG_DIR) {
        fs.writeFileSync(
          path.join(process.env.GK_SERVER_LOG_DIR, `${path.basename(dir)}.log`),
          server.output(),
        );
      }
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function shopClient(stack: Stack, channelToken?: string): GraphqlClient {
  return new GraphqlClient(stack.shopUrl, channelToken);
}
