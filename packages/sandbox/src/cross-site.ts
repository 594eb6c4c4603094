/**
 * Whether a request comes from another site's page. The control API changes what the sandbox sends to
 * the store (chargebacks, refund results, the clock), and a hosted page's form finishes a shopper's
 * payment: a page elsewhere must not do either with a form the browser posts for it. Browsers say where
 * a request comes from (`sec-fetch-site`, `origin`); tests, the CLI and curl send neither and stay
 * allowed, and so do the dashboard's and the hosted pages' own forms (same origin).
 */
import type { IncomingMessage } from 'node:http';

/**
 * Why the request comes from another site, or undefined. `ownHosts` are more `host[:port]` values the
 * sandbox's own pages are served under (its public URL behind a proxy that rewrites `Host`).
 */
export function fromAnotherSite(
  request: IncomingMessage,
  ownHosts: readonly string[] = [],
): string | undefined {
  const site = request.headers['sec-fetch-site'];
  // `same-site` is refused too: another port of the same machine is the same site.
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `sec-fetch-site ${site}`;
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  try {
    const host = new URL(origin).host;
    return host === request.headers.host || ownHosts.includes(host) ? undefined : 'another origin';
  } catch {
    return 'an unreadable origin';
  }
}
