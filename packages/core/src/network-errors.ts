/**
 * Classifies transport failures by whether the request can have reached the gateway. Only failures
 * that happen before a single byte of the request is written allow a money-moving call to be retried.
 */

/**
 * Codes raised while resolving, connecting or handshaking: the request was never written. EHOSTUNREACH
 * and ENETUNREACH are not here: a route can vanish after the body was written, so they are unknown.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

export function neverReachedGateway(error: unknown): boolean {
  return codesOf(error).some((code) => NEVER_SENT_CODES.has(code));
}

/** undici's per-request timers fired: no (complete) answer in time. */
export function isTimeout(error: unknown): boolean {
  return codesOf(error).some((code) => code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT');
}

/**
 * What went wrong on the network, by its code alone when it has one (`ECONNREFUSED`, `ENOTFOUND`, …):
 * the messages behind the codes name hosts, addresses, ports and certificate names, and these errors
 * reach shoppers through the platforms' answers. The operator knows the gateway address they configured.
 */
export function describeNetworkError(error: unknown): string {
  const [code] = codesOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!code) return message;
  // The client's own errors (GK_…) say what was wrong, and nothing about where.
  return code.startsWith('GK_') ? `${code}: ${message}` : code;
}
