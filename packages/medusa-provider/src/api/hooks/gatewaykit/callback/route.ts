import {
  isGatewayError,
  outcomeFromCallback,
  SignatureVerificationError,
  verifyCallback,
} from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys, MedusaError } from '@medusajs/framework/utils';
import { applyOutcome } from '../../../../lib/apply-outcome';
import { resolveGatewaykitOptions } from '../../../../lib/resolve-options';

/**
 * The gateway's callbackUrl. Verifies the signature over the raw bytes, stores the outcome, and only
 * then answers the plain body `success` (anything else makes the gateway retry, for up to 17 hours).
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const logger = req.scope.resolve(ContainerRegistrationKeys.LOGGER);
  const options = resolveGatewaykitOptions(req.scope);
  let event: ReturnType<typeof verifyCallback>;
  try {
    event = verifyCallback({
      rawBody: req.rawBody ?? '',
      headers: req.headers as Record<string, string>,
      gatewayNo: options.gatewayNo,
      signKey: options.signKey,
    });
  } catch (error) {
    if (!(error instanceof SignatureVerificationError)) throw error;
    logger.warn(`gatewaykit: callback rejected: ${error.message}`);
    res.status(401).type('text/plain').send('invalid signature');
    return;
  }
  const outcome = outcomeFromCallback(event);
  if (!outcome) {
    // Refund/chargeback notices: nothing to store, acknowledge so the gateway stops retrying.
    logger.info(`gatewaykit: callback ${event.type} acknowledged without a payment change`);
    res.type('text/plain').send('success');
    return;
  }
  try {
    await applyOutcome(req.scope, outcome);
  } catch (error) {
    if (error instanceof MedusaError && error.type === MedusaError.Types.NOT_FOUND) {
      res.status(404).type('text/plain').send('unknown order');
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
