/**
 * `POST /sessionToken` (docs/gateway-protocol.md#session-tokens): a token for the card element, bound to
 * the merchant that asked for it and valid 30 minutes on the sandbox clock.
 */
import type { SandboxContext } from '../context.js';
import { SESSION_TOKEN_LIFETIME_MS } from '../core.js';
import { newSessionToken } from '../ids.js';
import type { SessionTokenRecord } from '../store.js';

export function createSessionToken(context: SandboxContext, gatewayNo: string) {
  const now = context.clock.now();
  // Expired tokens are dropped as new ones come, so a long-running sandbox does not keep them all.
  for (const [token, record] of context.store.sessionTokens)
    if (record.expiresAt <= now) context.store.sessionTokens.delete(token);
  const record: SessionTokenRecord = {
    sessionToken: newSessionToken(),
    gatewayNo,
    expiresAt: now + SESSION_TOKEN_LIFETIME_MS,
  };
  context.store.sessionTokens.set(record.sessionToken, record);
  return { sessionToken: record.sessionToken };
}

/** The live token's record, or undefined when it is unknown or expired (the caller refuses both alike). */
export function liveSessionToken(context: SandboxContext, token: string): SessionTokenRecord | undefined {
  const record = context.store.sessionTokens.get(token);
  if (!record || record.expiresAt <= context.clock.now()) return undefined;
  return record;
}
