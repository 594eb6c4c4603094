import { randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import pg from 'pg';

/**
 * Evidence for CI's card-data scan (docs/SECURITY.md, `scripts/scan-card-data.ts`): with
 * GATEWAYKIT_EVIDENCE_DIR set, what a test run leaves behind (every database row, every server log,
 * every API response the tests or the browser received) is kept under
 * `$GATEWAYKIT_EVIDENCE_DIR/<workspace>/`. Without it nothing is written.
 */
export function evidenceDir(): string | undefined {
  const root = process.env.GATEWAYKIT_EVIDENCE_DIR;
  if (!root) return undefined;
  const dir = join(root, basename(process.cwd()));
  mkdirSync(dir, { recursive: true });
  return dir;
}

function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now()}-${randomUUID().slice(0, 8)}`;
}

/** Copies a file (a server log, a sql.js database) into the evidence folder. */
export function keepFileEvidence(file: string, prefix: string): void {
  const dir = evidenceDir();
  if (!dir || !existsSync(file)) return;
  copyFileSync(file, join(dir, `${uniqueName(prefix)}${file.match(/\.[a-z]+$/)?.[0] ?? ''}`));
}

/** Appends one API response body as a JSON line. */
export function keepResponseEvidence(url: string, body: unknown): void {
  const dir = evidenceDir();
  if (!dir) return;
  appendFileSync(join(dir, 'responses.jsonl'), `${JSON.stringify({ url, body })}\n`);
}

/** Every row of every table of the database's public schema, one JSON line each. */
export async function keepPostgresEvidence(databaseUrl: string, prefix: string): Promise<void> {
  const dir = evidenceDir();
  if (!dir) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const out = createWriteStream(join(dir, `${uniqueName(prefix)}.db.jsonl`));
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM "${name.replace(/"/g, '""')}" t`,
      );
      for (const { row } of rows) out.write(`{"table":${JSON.stringify(name)},"row":${row}}\n`);
    }
  } finally {
    await new Promise<void>((resolve) => out.end(resolve));
    await client.end();
  }
}
