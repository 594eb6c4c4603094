import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the storefront's same-origin proxies forward to each store: the shopper APIs only. The stores'
 * admin APIs stay off the storefront's origin: a QA browser logged into a store's admin would
 * otherwise send its admin cookies through the proxy, and any script on the storefront (the gateway's
 * card element SDK is third-party code) could use them.
 */
export const STORE_API_PATHS: Record<string, RegExp> = {
  '/medusa-api': /^\/(store|auth\/customer)(\/|\?|$)/,
  '/vendure-api': /^\/shop-api(\/|\?|$)/,
};

/**
 * Connect middleware, mounted at the root, that answers 404 for any request the proxies would take
 * (vite's proxy takes every URL that starts with its prefix, with or without a `/` after it) whose
 * path after the prefix is outside that prefix's allow-list. It matches as the proxy does: mounted at
 * the prefix instead, connect would skip `/medusa-apiadmin/…`, which the proxy still forwards as
 * `/admin/…` (found by review).
 */
export function onlyStoreApi(paths: Record<string, RegExp>) {
  const prefixes = Object.entries(paths);
  return (request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const url = request.url ?? '';
    const match = prefixes.find(([prefix]) => url.startsWith(prefix));
    if (!match) return next();
    const rest = url.slice(match[0].length);
    // The proxy resolves the path as a URL (dot segments, written or percent-encoded, and `\` as `/`):
    // `/store/../admin/…` reached the store's admin API (found by review). Browsers resolve them before
    // sending; a path the proxy would change is refused, whatever it resolves to.
    if (match[1].test(rest) && resolvesAsWritten(rest)) return next();
    response.statusCode = 404;
    response.setHeader('content-type', 'text/plain');
    response.end('Not a shopper API path');
  };
}

/** Whether the path (query left aside) is the one a URL parser resolves it to, as the proxy does. */
function resolvesAsWritten(path: string): boolean {
  const pathOnly = path.split('?')[0] ?? '';
  try {
    return new URL(pathOnly, 'http://base.invalid').pathname === pathOnly;
  } catch {
    return false;
  }
}
