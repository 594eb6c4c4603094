/** One `?` per value, for an `IN (…)` list: knex's raw bindings take no array as one value. */
export function placeholders(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}
