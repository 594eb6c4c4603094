/**
 * Error hierarchy of the client. Every error thrown by @gatewaykit/core extends GatewayError, carries
 * the gateway's `code` when there is one, and never carries card data or the sign key in its message.
 */
import { redactText } from './redact.js';

export interface GatewayErrorOptions {
  code?: string | undefined;
  httpStatus?: number | undefined;
  requestId?: string | undefined;
  retryable?: boolean | undefined;
  cause?: unknown;
}

/** Marker used by isGatewayError so the check survives duplicate copies of this package. */
const GATEWAY_ERROR_MARK = Symbol.for('@gatewaykit/core/GatewayError');

export class GatewayError extends Error {
  readonly code: string | undefined;
  readonly httpStatus: number | undefined;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  readonly [GATEWAY_ERROR_MARK] = true;

  constructor(message: string, options: GatewayErrorOptions = {}) {
    // Messages quote the gateway and callers' values: redacted here, once, for every error class.
    super(redactText(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = options.code;
    this.httpStatus = options.httpStatus;
    this.requestId = options.requestId;
    this.retryable = options.retryable ?? false;
  }
}

/** The gateway answered with a non-success code that has no more specific class. */
export class GatewayApiError extends GatewayError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayApiError';
  }
}

/** L0001 (merchant unknown / key wrong) and L0005 (bad signature): credentials or signing are wrong. */
export class GatewayAuthenticationError extends GatewayApiError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayAuthenticationError';
  }
}

/** L0003: request-time is more than 10 minutes away from the gateway's clock. */
export class GatewayClockSkewError extends GatewayApiError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayClockSkewError';
  }
}

/** L0004: the request-id was already used within 30 minutes. */
export class GatewayDuplicateRequestError extends GatewayApiError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayDuplicateRequestError';
  }
}

/** L0002 (wrong URL or method), P0001/P0002 (parameters): the gateway refused the request as sent. */
export class GatewayBadRequestError extends GatewayApiError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayBadRequestError';
  }
}

export interface ValidationIssue {
  /** Dotted field path, e.g. `customerPaymentMethod.billingDetail.address.state`. */
  path: string;
  message: string;
}

/** Input refused by the client before anything was sent. */
export class GatewayValidationError extends GatewayError {
  readonly issues: ValidationIssue[];

  constructor(message: string, issues: ValidationIssue[], options: GatewayErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? 'VALIDATION' });
    this.name = 'GatewayValidationError';
    this.issues = issues;
  }
}

/**
 * The connection failed. `retryable: true` when the request provably never reached the gateway
 * (connect refused, DNS, TLS) or for a read; a change whose connection broke after sending is not
 * retryable: it may or may not have been applied.
 */
export class GatewayConnectionError extends GatewayError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayConnectionError';
  }
}

/**
 * No answer in time. A read is retryable; a change (create customer, update, attach, detach, delete)
 * is not, since it may or may not have been applied. Money-moving calls raise UnknownOutcomeError.
 */
export class GatewayTimeoutError extends GatewayError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.name = 'GatewayTimeoutError';
  }
}

/** The `code` of an UnknownOutcomeError that carries no gateway code (no answer was read). */
export const UNKNOWN_OUTCOME_CODE = 'UNKNOWN_OUTCOME';

/**
 * A money-moving request was (or may have been) written to the gateway but no answer was read.
 * The charge may exist. Never retry it as a new charge: keep the payment pending and let the
 * signed callback or return decide.
 */
export class UnknownOutcomeError extends GatewayError {
  readonly operation: string;

  constructor(message: string, operation: string, options: GatewayErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? UNKNOWN_OUTCOME_CODE, retryable: false });
    this.name = 'UnknownOutcomeError';
    this.operation = operation;
  }
}

/** The gateway answered something this client cannot read as the documented shape. */
export class ResponseValidationError extends GatewayError {
  readonly issues: ValidationIssue[];

  constructor(message: string, issues: ValidationIssue[], options: GatewayErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? 'RESPONSE_VALIDATION' });
    this.name = 'ResponseValidationError';
    this.issues = issues;
  }
}

/** A callback or return whose signature, headers or timestamp do not check out. */
export class SignatureVerificationError extends GatewayError {
  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? 'SIGNATURE_VERIFICATION' });
    this.name = 'SignatureVerificationError';
  }
}

/** True for any error from @gatewaykit/core, including one thrown by another copy of the package. */
export function isGatewayError(value: unknown): value is GatewayError {
  if (value instanceof GatewayError) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[GATEWAY_ERROR_MARK] === true
  );
}
