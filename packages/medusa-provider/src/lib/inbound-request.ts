import type { InboundLogger } from '@gatewaykit/core';
import type { MedusaRequest } from '@medusajs/framework/http';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { type GatewaykitAccount, resolveGatewaykitAccounts } from './resolve-options';
import { SessionAttempts } from './session-attempts';

/** What core's handleCallback/handleReturn need from a Medusa request, besides the request itself. */
export function inboundContext(req: MedusaRequest): {
  accounts: GatewaykitAccount[];
  storeFor: (account: GatewaykitAccount) => SessionAttempts;
  logger: InboundLogger;
} {
  return {
    accounts: resolveGatewaykitAccounts(req.scope),
    storeFor: (account) => new SessionAttempts(req.scope, account),
    logger: req.scope.resolve(ContainerRegistrationKeys.LOGGER),
  };
}
