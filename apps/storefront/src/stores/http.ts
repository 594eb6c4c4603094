import { FieldError } from './types';

/** An API answer that is not a success, with the store's own message. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** JSON request helper: returns the parsed body or throws StoreError with the API's message. */
export async function requestJson<T>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(url, {
    ...init,
    headers,
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text };
  }
  if (!response.ok) {
    const message = (body as { message?: string }).message || `Request failed (${response.status})`;
    throw new StoreError(message, response.status);
  }
  return body as T;
}

/** Throws a FieldError for the first field that is empty. */
export function requireFields(values: Record<string, string>, labels: Record<string, string>): void {
  for (const [field, label] of Object.entries(labels)) {
    if (!values[field]?.trim()) throw new FieldError(field, `${label} is required`);
  }
}
