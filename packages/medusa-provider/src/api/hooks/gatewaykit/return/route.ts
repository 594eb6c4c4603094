import { outcomeFromReturn, SignatureVerificationError, withQuery } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { applyOutcome, cartIdOfSession } from '../../../../lib/apply-outcome';
import { resolveGatewaykitAccounts } from '../../../../lib/resolve-options';
import { verifyReturnFor } from '../../../../lib/verify-notification';

/**
 * The gateway's returnUrl. A verified return is as trustworthy as a callback: store it the same way
 * (in a session of the account whose key verified it), then send the shopper to the storefront with
 * the cart id and the outcome.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const query = new URL(req.originalUrl, 'http://return.local').searchParams;
  let verified: ReturnType<typeof verifyReturnFor>;
  try {
    verified = verifyReturnFor(resolveGatewaykitAccounts(req.scope), query);
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    req.scope.resolve(ContainerRegistrationKeys.LOGGER).warn(`gatewaykit: return rejected: ${error.message}`);
    res.status(401).type('text/plain').send('invalid signature');
    return;
  }
  const { account, fields } = verified;
  const { session, outcome } = await applyOutcome(req.scope, outcomeFromReturn(fields), account.providerIds);
  const cartId = await cartIdOfSession(req.scope, session);
  res.redirect(
    303,
    withQuery(account.options.storefrontReturnUrl, {
      ...(cartId ? { cart_id: cartId } : {}),
      outcome: outcome.status,
    }),
  );
}
