/** The response envelope every API call answers with (docs/gateway-protocol.md#response-envelope). */

export interface Envelope {
  /**
   * All zeros (`00000`, `0000`, `0`) on success (isSuccessCode); a number is read as its string, so
   * the number 0 is `0`.
   */
  code: string;
  message: string | null | undefined;
  data: unknown;
}

/**
 * Reads the envelope of a parsed answer, or undefined when it has none. Hand-written rather than a
 * zod schema: it runs on every response, and zod's per-call cost shows in the client's throughput.
 */
export function readEnvelope(json: unknown): Envelope | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { code, message, data } = json as Record<string, unknown>;
  if (typeof code !== 'string' && typeof code !== 'number') return undefined;
  if (message !== undefined && message !== null && typeof message !== 'string') return undefined;
  return { code: String(code), message: message as string | null | undefined, data };
}
