import { outcomeFromReturn, SignatureVerificationError, verifyReturn, withQuery } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { applyOutcome, cartIdOfSession } from '../../../../lib/apply-outcome';
import { resolveGatewaykitOptions } from '../../../../lib/resolve-options';

/**
 * The gateway's returnUrl. A verified return is as trustworthy as a callback: store it the same way,
 * then send the shopper to the storefront with the cart id and the outcome.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const options = resolveGatewaykitOptions(req.scope);
  const query = new URL(req.originalUrl, 'http://return.local').searchParams;
  let fields: ReturnType<typeof verifyReturn>;
  try {
    fields = verifyReturn({ query, signKey: options.signKey });
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    req.scope.resolve(ContainerRegistrationKeys.LOGGER).warn(`gatewaykit: return rejected: ${error.message}`);
    res.status(401).type('text/plain').send('invalid signature');
    return;
  }
  const { session, outcome } = await applyOutcome(req.scope, outcomeFromReturn(fields));
  const cartId = await cartIdOfSession(req.scope, session);
  res.redirect(
    303,
    withQuery(options.storefrontReturnUrl, {
      ...(cartId ? { cart_id: cartId } : {}),
      outcome: outcome.status,
    }),
  );
}
