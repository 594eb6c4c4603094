/**
 * The session token of the browser card element (docs/gateway-protocol.md#session-tokens): `POST
 * /sessionToken` has no body; its answer hands one token to the shopper's page.
 */
import { z } from 'zod';

export const sessionTokenSchema = z.looseObject({
  sessionToken: z.string().min(1).max(512),
});

export type SessionToken = z.output<typeof sessionTokenSchema>;
