/** The gateway's envelope and the error replies the sandbox gives (docs/gateway-protocol.md#error-codes). */
import { DUPLICATE_ORDER_CODE, ERROR_CODES, redactText } from './core.js';

/** Business code for a second charge of an orderNo that already succeeded (the gateway's "Duplicate Order", I0061). */
export { DUPLICATE_ORDER_CODE };

const CODE_MESSAGES: Readonly<Record<string, string>> = {
  [ERROR_CODES.SUCCESS]: 'success',
  [ERROR_CODES.GENERIC]: 'api request error',
  [ERROR_CODES.MERCHANT]: 'limited request',
  [ERROR_CODES.URL]: 'api url error',
  [ERROR_CODES.TIME]: 'requestTime outside range',
  [ERROR_CODES.DUPLICATE]: 'duplicate request',
  [ERROR_CODES.SIGN]: 'check sign info error',
  [ERROR_CODES.PARAM]: 'request param error',
  [ERROR_CODES.PARAM_NULL]: 'param is null or incorrect',
  [DUPLICATE_ORDER_CODE]: 'Duplicate Order',
};

export interface Envelope {
  code: string;
  message: string;
  data: unknown;
}

/** Thrown by checks and handlers; the server turns it into an HTTP 200 envelope with data null. */
export class GatewayReply extends Error {
  constructor(
    readonly code: string,
    detail?: string,
  ) {
    const base = CODE_MESSAGES[code] ?? 'api request error';
    super(detail ? `${base}: ${detail}` : base);
    this.name = 'GatewayReply';
  }

  toEnvelope(): Envelope {
    return { code: this.code, message: this.message, data: null };
  }
}

export function success(data: unknown): Envelope {
  return { code: ERROR_CODES.SUCCESS, message: 'success', data };
}

/** A reference to something that does not exist: the gateway's "param is null or incorrect". */
export function notFound(field: string, value: string): GatewayReply {
  // Redacted in case a card number was sent where an id belongs.
  return new GatewayReply(ERROR_CODES.PARAM_NULL, `${field} ${redactText(value)} does not exist`);
}

/** A refused test control (control API and `Sandbox` methods): HTTP `status` with `{ error: message }`. */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}
