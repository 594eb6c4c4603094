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
