import pg from 'pg';
import { inject } from 'vitest';

/** A look into the app's database, for assertions (and staged states) the public API cannot make. */
export async function sql<T extends Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Statements as the plugin writes them for knex (`?` bindings), run through node-postgres (`$n`). */
function numbered(text: string): string {
  let bound = 0;
  return text.replace(/\?/g, () => `$${++bound}`);
}

/** The app's database as the plugin's writers take it (`raw`), one connection per statement. */
export const pluginDatabase = {
  raw: async (text: string, values: readonly unknown[]) => ({ rows: await sql(numbered(text), [...values]) }),
};

/**
 * A transaction on a connection of its own, opened at once, given as the plugin's database (its
 * `raw`), so a writer of the plugin can run inside it and hold the rows it changed until `commit`.
 * `pid`: its server process, which statements waiting on its row locks name (pg_blocking_pids).
 */
export async function openTransaction(): Promise<{
  db: { raw: (text: string, values: readonly unknown[]) => Promise<{ rows: Record<string, unknown>[] }> };
  pid: number;
  commit: () => Promise<void>;
  rollback: () => Promise<void>;
}> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const end = async (statement: string) => {
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return {
    db: { raw: async (text, values) => client.query(numbered(text), [...values]) },
    pid: rows[0]!.pid,
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
  };
}

/** The statements of other sessions waiting for a lock that process `pid` holds. */
export async function statementsWaitingOn(pid: number): Promise<string[]> {
  const rows = await sql<{ query: string }>(
    'SELECT query FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
    [pid],
  );
  return rows.map((row) => row.query);
}
