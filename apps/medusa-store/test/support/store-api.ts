import { keepResponseEvidence } from '../../scripts/evidence';

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON of the HTTP API; the tests' assertions check it
export type Json = any;

let target: { url: string; publishableKey: string } | undefined;

/** Points the helpers at a store: the tests' setup file (provided store) or the bench script. */
export function useStore(url: string, publishableKey: string): void {
  target = { url, publishableKey };
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** Minimal Store/Admin API client: JSON in, JSON out, publishable key and bearer token added. */
export async function api<T = Record<string, Json>>(
  method: string,
  path: string,
  options: {
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    token?: string | undefined;
  } = {},
): Promise<ApiResponse<T>> {
  const store = target;
  if (!store) throw new Error('useStore() was not called');
  const response = await fetch(`${store.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'x-publishable-api-key': store.publishableKey,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.rawBody === undefined ? {} : { body: options.rawBody }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // plain-text answers (e.g. `success`) stay strings
  }
  keepResponseEvidence(path, body);
  return { status: response.status, body: body as T };
}

export async function expectOk<T = Record<string, Json>>(response: Promise<ApiResponse<T>>): Promise<T> {
  const { status, body } = await response;
  if (status >= 300) throw new Error(`expected 2xx, got ${status}: ${JSON.stringify(body)}`);
  return body;
}
