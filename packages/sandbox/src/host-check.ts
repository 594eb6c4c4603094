/**
 * The host names the sandbox answers under (dashboard, control API, hosted pages, card element and the
 * signed gateway API). A page on a domain whose DNS an attacker points at 127.0.0.1 (DNS rebinding) is
 * same-origin with the sandbox to the browser: it passes the control API's cross-site check and can
 * read and drive the sandbox. The signed API is no exception: the demo merchant's key is public, so the
 * page's script can sign like a store. The browser still sends that domain in `Host`, so the sandbox
 * answers only the names it was started under: IP addresses (no DNS to rebind), `localhost` and
 * `*.localhost`, the public URL's host, and the names given with `allowedHosts`. A store that reaches
 * the sandbox under another name is started with that name in `allowedHosts`.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export class AllowedHosts {
  private readonly names: ReadonlySet<string>;

  constructor(names: readonly string[]) {
    // A name may be given with a port (`qa-box:8600`): only the host name is compared.
    this.names = new Set(
      names.map((name) => hostName(name.trim())).filter((name): name is string => name !== undefined),
    );
  }

  // The last Host judged and its answer: the gateway API is checked too, and a store sends the same
  // Host on every call, so the URL parse runs once rather than per request.
  private lastHost: string | undefined;
  private lastAnswer: string | undefined;

  /** Why the request's Host is not one of the sandbox's names, or undefined when it is. */
  refusal(request: IncomingMessage): string | undefined {
    const host = request.headers.host;
    // HTTP/1.0 clients may omit Host; a browser never does.
    if (host === undefined) return undefined;
    if (host !== this.lastHost) {
      this.lastAnswer = this.judge(host);
      this.lastHost = host;
    }
    return this.lastAnswer;
  }

  private judge(host: string): string | undefined {
    const name = hostName(host);
    if (name === undefined) return 'an unreadable Host';
    if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return undefined;
    return this.names.has(name) ? undefined : `Host ${name} is not one of its names`;
  }
}

/** The lower-case host name of a Host header, without port or IPv6 brackets. */
function hostName(host: string): string | undefined {
  // Userinfo, paths and spaces would let the URL parser find another host inside (`evil@127.0.0.1`).
  if (host === '' || /[@/?#\\\s]/.test(host)) return undefined;
  try {
    // `localhost.` is `localhost`: a fully qualified name's root dot names the same host.
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** The names a sandbox allows: its public URL's host and the ones it was given. */
export function allowedHostsOf(publicUrl: string | undefined, extra: readonly string[] = []): AllowedHosts {
  const names = [...extra];
  if (publicUrl) names.push(publicUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0] ?? '');
  return new AllowedHosts(names);
}
