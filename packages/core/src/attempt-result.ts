/**
 * What one HTTP attempt ended with, decided by the retry policy of DESIGN §4. Pure functions, so the
 * policy reads in one place: reads may retry network errors, timeouts and 5xx; a money-moving call may
 * retry only when the request never left, and anything after sending is an unknown outcome.
 */
import { isSuccessCode } from './codes.js';
import {
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayTimeoutError,
  ResponseValidationError,
  UnknownOutcomeError,
} from './errors.js';
import { describeNetworkError, isTimeout, neverReachedGateway } from './network-errors.js';
import type { OperationDefinition } from './operations.js';
import { errorForCode } from './response-errors.js';
import { readEnvelope } from './schemas/envelope.js';

export type AttemptResult =
  | { ok: true; code: string; data: unknown }
  | { ok: false; error: GatewayError; retry: boolean };

interface AttemptContext {
  operation: OperationDefinition;
  requestId: string;
  timeoutMs: number;
  callerAborted: boolean;
}

const retryable = (error: GatewayError): AttemptResult => ({ ok: false, error, retry: true });
const final = (error: GatewayError): AttemptResult => ({ ok: false, error, retry: false });

function unknownOutcome(ctx: AttemptContext, reason: string, cause?: unknown): AttemptResult {
  const { name } = ctx.operation;
  return final(
    new UnknownOutcomeError(
      `${name}: the outcome is unknown (${reason}); the charge may exist. Do not retry it as a new payment: wait for the signed callback or return.`,
      name,
      { requestId: ctx.requestId, cause },
    ),
  );
}

/** The request threw before an answer was read. */
export function resultOfTransportError(ctx: AttemptContext, error: unknown): AttemptResult {
  const { name, moneyMoving } = ctx.operation;
  const options = { requestId: ctx.requestId, cause: error };
  if (neverReachedGateway(error)) {
    // Nothing was written: safe to try again even for a charge.
    return retryable(
      new GatewayConnectionError(`${name}: could not reach the gateway (${describeNetworkError(error)})`, {
        ...options,
        retryable: true,
      }),
    );
  }
  if (ctx.callerAborted) {
    if (moneyMoving) return unknownOutcome(ctx, 'aborted by the caller after sending', error);
    return final(new GatewayError(`${name}: aborted by the caller`, { ...options, code: 'ABORTED' }));
  }
  if (moneyMoving) {
    const reason = isTimeout(error) ? `no answer within ${ctx.timeoutMs} ms` : describeNetworkError(error);
    return unknownOutcome(ctx, reason, error);
  }
  if (isTimeout(error)) {
    return retryable(
      new GatewayTimeoutError(`${name}: no answer within ${ctx.timeoutMs} ms`, {
        ...options,
        retryable: true,
      }),
    );
  }
  return retryable(
    new GatewayConnectionError(`${name}: connection failed (${describeNetworkError(error)})`, {
      ...options,
      retryable: true,
    }),
  );
}

/** An answer arrived: read the envelope and its code. */
export function resultOfAnswer(ctx: AttemptContext, status: number, text: string): AttemptResult {
  const { name, moneyMoving } = ctx.operation;
  const options = { requestId: ctx.requestId, httpStatus: status };
  let envelope: ReturnType<typeof readEnvelope>;
  try {
    envelope = readEnvelope(JSON.parse(text));
  } catch {
    envelope = undefined;
  }
  if (!envelope || (status >= 500 && !isSuccessCode(envelope.code))) {
    if (moneyMoving) return unknownOutcome(ctx, `HTTP ${status} without a readable result`);
    if (status >= 500) {
      const error = envelope
        ? errorForCode(envelope.code, envelope.message ?? '', { ...options, retryable: true })
        : new GatewayApiError(`${name}: gateway answered HTTP ${status}`, { ...options, retryable: true });
      return retryable(error);
    }
    return retryable(
      new ResponseValidationError(
        `${name}: the answer is not a {code, message, data} envelope (HTTP ${status})`,
        [],
        {
          ...options,
          retryable: true,
        },
      ),
    );
  }
  if (!isSuccessCode(envelope.code))
    return final(errorForCode(envelope.code, envelope.message ?? '', options));
  return { ok: true, code: envelope.code, data: envelope.data };
}
