import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { inject } from 'vitest';
import { evidenceDir } from './evidence';

/**
 * The database the app's suites run on: sql.js, the demo's (default), or PostgreSQL, the one a real
 * store runs on (GK_VENDURE_TEST_DB=postgres), where the plugin's row locks, its reads of the
 * database's clock and its plain-read outcome decisions are the paths taken
 * (apps/vendure-store/README.md, "Tests").
 */
export const TEST_DATABASE: 'sqljs' | 'postgres' =
  process.env.GK_VENDURE_TEST_DB === 'postgres' ? 'postgres' : 'sqljs';

/** The populated template every test file copies, as the global setup made it. */
export type TemplateDatabase =
  | { kind: 'sqljs'; file: string }
  | { kind: 'postgres'; adminUrl: string; template: string };

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: TemplateDatabase;
  }
}

/** One test file's own copy of the populated database. */
export interface TestDatabase {
  /** What the store process needs to open it. */
  env: Record<string, string>;
  /** Everything stored, as text (the card-data checks read it). */
  text(): Promise<string>;
  close(): Promise<void>;
}

/** A copy of the template for one test file; `dir` is the file's own temporary folder. */
export async function copyTemplateDatabase(dir: string): Promise<TestDatabase> {
  const template = inject('templateDatabase');
  if (template.kind === 'sqljs') {
    const file = path.join(dir, 'store.sqlite');
    fs.copyFileSync(template.file, file);
    return {
      env: { DB_PATH: file },
      text: async () => fs.readFileSync(file).toString('latin1'),
      close: async () => {},
    };
  }
  // Unique across test files and worker processes, also when a crashed file left its copy behind.
  const database = `gk_test_${randomUUID().replaceAll('-', '')}`;
  await onAdmin(template.adminUrl, (admin) =>
    admin.query(`CREATE DATABASE ${database} TEMPLATE ${template.template}`),
  );
  const url = new URL(template.adminUrl);
  url.pathname = `/${database}`;
  const withClient = <T>(work: (client: Client) => Promise<T>) => onAdmin(url.toString(), work);
  return {
    env: { GATEWAYKIT_DATABASE: 'postgres', DATABASE_URL: url.toString() },
    text: () => withClient(databaseText),
    async close() {
      const dir = evidenceDir();
      if (dir) {
        const text = await withClient(databaseText);
        fs.writeFileSync(path.join(dir, `postgres-${database}.jsonl`), text);
      }
      await onAdmin(template.adminUrl, (admin) => admin.query(`DROP DATABASE ${database} WITH (FORCE)`));
    },
  };
}

async function onAdmin<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every row of every table, as JSON lines (CI's card-data scan reads them: evidence.ts). */
export async function databaseText(db: Client): Promise<string> {
  const tables = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const lines: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await db.query(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
    for (const row of rows.rows) lines.push(JSON.stringify({ table: name, row }));
  }
  return lines.map((line) => `${line}\n`).join('');
}
