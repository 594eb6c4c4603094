/** Case-insensitive header lookup over the header shapes Node, Fetch and frameworks hand out. */
export type HeaderSource =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | ReadonlyMap<string, string>;

export function readHeader(headers: HeaderSource, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof (headers as Headers).get === 'function') {
    const value =
      (headers as Headers | ReadonlyMap<string, string>).get(wanted) ??
      (headers as ReadonlyMap<string, string>).get(name);
    return value ?? undefined;
  }
  for (const [key, value] of Object.entries(
    headers as Record<string, string | readonly string[] | undefined>,
  )) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : (value as string | undefined);
  }
  return undefined;
}
