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
    if (!match || match[1].test(url.slice(match[0].length))) return next();
    response.statusCode = 404;
    response.setHeader('content-type', 'text/plain');
    response.end('Not a shopper API path');
  };
}
