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
 * Connect middleware for one proxy prefix (mounted at it, so `req.url` is the path after it): a path
 * outside the allow-list is answered 404 before the proxy sees it.
 */
export function onlyStoreApi(allowed: RegExp) {
  return (request: IncomingMessage, response: ServerResponse, next: () => void) => {
    if (allowed.test(request.url ?? '')) return next();
    response.statusCode = 404;
    response.setHeader('content-type', 'text/plain');
    response.end('Not a shopper API path');
  };
}
