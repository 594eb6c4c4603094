import { GatewayValidationError, isGatewayError, redact } from '@gatewaykit/core';
import { MedusaError } from '@medusajs/framework/utils';

/**
 * Turns gateway errors into MedusaErrors (their type reaches the HTTP client). Messages are passed
 * through redact() so a card number can never leak into a response or a log.
 */
export function toMedusaError(error: unknown, action: string): MedusaError {
  if (error instanceof MedusaError) return error;
  const message = String(redact(error instanceof Error ? error.message : String(error)));
  if (error instanceof GatewayValidationError) {
    return new MedusaError(MedusaError.Types.INVALID_DATA, `${action}: ${message}`);
  }
  if (isGatewayError(error)) {
    return new MedusaError(
      MedusaError.Types.UNEXPECTED_STATE,
      `${action}: the gateway answered ${error.code ?? 'an error'}: ${message}`,
    );
  }
  return new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `${action}: ${message}`);
}
