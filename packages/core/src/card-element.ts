/**
 * What a storefront needs to mount the gateway's card element (docs/card-element.md): a session token
 * minted by the merchant account that will charge, the SDK's URL, and when the token stops working.
 */
import type { GatewayClient } from './client.js';

/** The gateway documents a session token as valid for 30 minutes. */
export const SESSION_TOKEN_LIFETIME_MS = 30 * 60_000;

export interface CardElementSession {
  sessionToken: string;
  scriptUrl: string;
  /** Counted from before the token was asked for, so never later than the gateway's own expiry. */
  expiresAt: Date;
}

/** Mints a token with this client's account. Throws when the gateway could not be asked or refused. */
export async function openCardElement(
  client: GatewayClient,
  now: () => number = Date.now,
): Promise<CardElementSession> {
  const issuedAt = now();
  const { sessionToken } = await client.sessionTokens.create();
  return {
    sessionToken,
    scriptUrl: client.elementScriptUrl,
    expiresAt: new Date(issuedAt + SESSION_TOKEN_LIFETIME_MS),
  };
}
