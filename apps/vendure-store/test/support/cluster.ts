import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@gatewaykit/sandbox';
import { Client } from 'pg';
import { DEMO_MERCHANTS } from '../../src/gateways';
import { GraphqlClient, loginAdmin } from '../../src/graphql-client';
import { type Cluster, startCluster } from '../../src/topology/cluster';
import { evidenceDir, keepServerEvidence } from './evidence';
import { databaseText } from './test-database';

export interface ClusterStack {
  sandbox: Sandbox;
  cluster: Cluster;
  admin: GraphqlClient;
  /** Shop API through the round-robin proxy. */
  shop(channelToken?: string): GraphqlClient;
  /** Shop API of one instance (0-based), with the session of `like` when given. */
  shopOf(index: number, like?: GraphqlClient): GraphqlClient;
  sql<T extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * The production topology (src/topology/cluster.ts) for one test file: a sandbox in the test process,
 * Redis, a fresh PostgreSQL database (embedded, in the OS temp dir), the committed migrations, two
 * server instances and one worker as real processes, and the round-robin proxy as the public URL.
 */
export async function startClusterStack(env: Record<string, string> = {}): Promise<ClusterStack> {
  const sandbox = await startSandbox({ port: 0, merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-cluster-'));
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      gateways: {
        main: { ...DEMO_MERCHANTS.main, baseUrl: sandbox.url },
        jp: { ...DEMO_MERCHANTS.jp, baseUrl: sandbox.url },
      },
      dataDir: path.join(dir, 'pg'),
      ...(process.env.GK_TEST_DATABASE_URL ? { databaseUrl: process.env.GK_TEST_DATABASE_URL } : {}),
      env: { LOG_LEVEL: 'info', ...env },
      log: (line) => {
        if (process.env.GK_CLUSTER_VERBOSE === '1') console.log(`[cluster] ${line}`);
      },
    });
  } catch (error) {
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const db = new Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  const shopUrl = (base: string) => `${base}/shop-api`;
  return {
    sandbox,
    cluster,
    admin: await loginAdmin(`${cluster.url}/admin-api`),
    shop: (channelToken) => new GraphqlClient(shopUrl(cluster.url), channelToken),
    shopOf: (index, like) => {
      const server = cluster.servers[index];
      if (!server?.url) throw new Error(`no server ${index}`);
      const client = new GraphqlClient(shopUrl(server.url), like?.channelToken);
      client.authToken = like?.authToken;
      return client;
    },
    sql: async (text, values = []) => (await db.query(text, values)).rows,
    async close() {
      await keepDatabaseEvidence(db).catch(() => undefined);
      await db.end().catch(() => undefined);
      const processes = [...cluster.servers, cluster.worker];
      await cluster.stop();
      for (const p of processes) keepServerEvidence(undefined, p.output());
      if (process.env.GK_SERVER_LOG_DIR) {
        for (const p of processes) {
          fs.writeFileSync(path.join(process.env.GK_SERVER_LOG_DIR, `cluster-${p.name}.log`), p.output());
        }
      }
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every row of every table the cluster stored, as JSON lines, for CI's card-data scan (evidence.ts). */
async function keepDatabaseEvidence(db: Client): Promise<void> {
  const dir = evidenceDir();
  if (!dir) return;
  fs.writeFileSync(path.join(dir, `cluster-postgres-${Date.now()}.jsonl`), await databaseText(db));
}
