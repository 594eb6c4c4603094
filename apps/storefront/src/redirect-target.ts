/**
 * Where a payment's redirect may take the shopper: a page of this storefront (a path) or the
 * gateway's page at an absolute http(s) address. The address comes from the store's answer; core
 * already turns other redirectUrls into an unknown outcome, and this is the storefront's own check on
 * top, so that a `javascript:` or `data:` address, or a protocol-relative `//host`, is never opened.
 */
export type RedirectTarget = { kind: 'page'; path: string } | { kind: 'gateway'; url: string };

export function redirectTarget(address: string): RedirectTarget | undefined {
  // One leading slash only: `//host` and `/\host` are other hosts to the browser.
  if (/^\/(?![/\\])/.test(address)) return { kind: 'page', path: address };
  let url: URL;
  try {
    // No base: a relative address is not the gateway's page.
    url = new URL(address);
  } catch {
    return undefined;
  }
  // The parsed form is what was checked, so it is what the browser is sent to.
  return url.protocol === 'https:' || url.protocol === 'http:'
    ? { kind: 'gateway', url: url.href }
    : undefined;
}
