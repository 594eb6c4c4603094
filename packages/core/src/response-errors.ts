/** Maps a non-success envelope code to the matching error class (docs/gateway-protocol.md#error-codes). */
import { ERROR_CODES } from './codes.js';
import {
  GatewayApiError,
  GatewayAuthenticationError,
  GatewayBadRequestError,
  GatewayClockSkewError,
  GatewayDuplicateRequestError,
  type GatewayError,
  type GatewayErrorOptions,
} from './errors.js';

/**
 * `message` is the gateway's own text: it can echo request fields (a P0001 naming the bad cardNo);
 * GatewayError redacts it with the rest of the message.
 */
export function errorForCode(
  code: string,
  message: string,
  options: GatewayErrorOptions,
  note = '',
): GatewayError {
  const text = `Gateway refused the request: ${code} ${message}`.trim() + note;
  const withCode = { ...options, code };
  switch (code) {
    case ERROR_CODES.MERCHANT:
    case ERROR_CODES.SIGN:
      return new GatewayAuthenticationError(text, withCode);
    case ERROR_CODES.TIME:
      return new GatewayClockSkewError(
        `${text} (check the server clock: request-time must be within 10 minutes)`,
        withCode,
      );
    case ERROR_CODES.DUPLICATE:
      return new GatewayDuplicateRequestError(text, withCode);
    case ERROR_CODES.URL:
    case ERROR_CODES.PARAM:
    case ERROR_CODES.PARAM_NULL:
      return new GatewayBadRequestError(text, withCode);
    default:
      return new GatewayApiError(text, withCode);
  }
}
