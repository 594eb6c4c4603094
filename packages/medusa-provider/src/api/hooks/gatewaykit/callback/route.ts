import { isGatewayError, outcomeFromCallback, SignatureVerificationError } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys, MedusaError } from '@medusajs/framework/utils';
import { applyOutcome } from '../../../../lib/apply-outcome';
import { resolveGatewaykitAccounts } from '../../../../lib/resolve-options';
import { reportUnappliedCharge } from '../../../../lib/unapplied-charge';
import { verifyCallbackFor } from '../../../../lib/verify-notification';

/**
 * The gateway's callbackUrl. Verifies the signature over the raw bytes with the account the callback
 * names, stores the outcome in a session of that account only, and only then answers the plain body
 * `success` (anything else makes the gateway retry, for up to 17 hours).
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const logger = req.scope.resolve(ContainerRegistrationKeys.LOGGER);
  let verified: ReturnType<typeof verifyCallbackFor>;
  try {
    verified = verifyCallbackFor(
      resolveGatewaykitAccounts(req.scope),
      req.rawBody ?? '',
      req.headers as Record<string, string>,
    );
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    logger.warn(`gatewaykit: callback rejected: ${error.message}`);
    res.status(401).type('text/plain').send('invalid signature');
    return;
  }
  const { account, event } = verified;
  const outcome = outcomeFromCallback(event);
  if (!outcome) {
    // Refund/chargeback notices: nothing to store, acknowledge so the gateway stops retrying.
    logger.info(`gatewaykit: callback ${event.type} acknowledged without a payment change`);
    res.type('text/plain').send('success');
    return;
  }
  try {
    await applyOutcome(req.scope, outcome, account.providerIds);
  } catch (error) {
    if (error instanceof MedusaError && error.type === MedusaError.Types.NOT_FOUND) {
      // No session of this account has the orderNo (deleted, or never ours): retrying cannot help.
      if (outcome.status === 'succeeded') {
        await reportUnappliedCharge(
          req.scope,
          outcome,
          `no payment session of provider account "${account.id}"`,
        );
      } else {
        logger.info(
          `gatewaykit: callback ${outcome.status} for unknown orderNo ${outcome.orderNo} acknowledged`,
        );
      }
      res.type('text/plain').send('success');
      return;
    }
    if (isGatewayError(error) && error.code === 'AMOUNT_MISMATCH') {
      logger.error(`gatewaykit: callback for ${outcome.orderNo} rejected: ${error.message}`);
      res.status(409).type('text/plain').send('amount mismatch');
      return;
    }
    throw error;
  }
  res.type('text/plain').send('success');
}
