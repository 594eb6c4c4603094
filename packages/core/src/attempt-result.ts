/**
 * What one HTTP attempt ended with, decided by the retry policy of docs/safety-rules.md#retry-policy. Pure functions, so the
 * policy reads in one place:
 *  - any call may retry when the request provably never left (connect errors);
 *  - only reads may retry after the request may have arrived (timeout, reset, 5xx, unreadable answer);
 *  - a money-moving call that may have arrived is an unknown outcome;
 *  - a card charge or a refund answered with a code that is not a documented refusal is an unknown
 *    outcome (unless the charge's data says success or pending): it may have moved money; a hosted or
 *    local payment so answered without a page is refused (no page, nothing can be paid);
 *  - any other change (create customer, update/attach/detach a method, delete) that may have arrived
 *    fails without a retry and says the change may or may not have been applied.
 */
import { DUPLICATE_ORDER_CODE, isRefusedBeforeProcessing, isSuccessCode } from './codes.js';
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

/** Appended to errors of changes that may have reached the gateway: sending again could apply them twice. */
const MAYBE_APPLIED = 'the change may or may not have been applied; check its state before sending it again';

/** After the request may have arrived: a read is retried, any other call says it may have been applied. */
const mayHaveArrivedNote = (read: boolean) => (read ? '' : `; ${MAYBE_APPLIED}`);
const retryIfRead = (read: boolean, error: GatewayError): AttemptResult =>
  read ? retryable(error) : final(error);

/** What an unknown outcome of a charge means (operations say otherwise through unknownOutcomeAdvice). */
const CHARGE_ADVICE =
  'the charge may exist. Do not retry it as a new payment: wait for the signed callback or return.';

function unknownOutcome(ctx: AttemptContext, reason: string, cause?: unknown): AttemptResult {
  const { name } = ctx.operation;
  return final(
    new UnknownOutcomeError(
      `${name}: the outcome is unknown (${reason}); ${ctx.operation.unknownOutcomeAdvice ?? CHARGE_ADVICE}`,
      name,
      { requestId: ctx.requestId, cause },
    ),
  );
}

/** The request threw before an answer was read. */
export function resultOfTransportError(ctx: AttemptContext, error: unknown): AttemptResult {
  const { name, moneyMoving, read } = ctx.operation;
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
    const note = mayHaveArrivedNote(read);
    return final(new GatewayError(`${name}: aborted by the caller${note}`, { ...options, code: 'ABORTED' }));
  }
  if (moneyMoving) {
    const reason = isTimeout(error) ? `no answer within ${ctx.timeoutMs} ms` : describeNetworkError(error);
    return unknownOutcome(ctx, reason, error);
  }
  const note = mayHaveArrivedNote(read);
  const errorOptions = { ...options, retryable: read };
  const failure = isTimeout(error)
    ? new GatewayTimeoutError(`${name}: no answer within ${ctx.timeoutMs} ms${note}`, errorOptions)
    : new GatewayConnectionError(
        `${name}: connection failed (${describeNetworkError(error)})${note}`,
        errorOptions,
      );
  return retryIfRead(read, failure);
}

/** An answer arrived: read the envelope and its code. */
export function resultOfAnswer(ctx: AttemptContext, status: number, text: string): AttemptResult {
  const { name, moneyMoving, read } = ctx.operation;
  let envelope: ReturnType<typeof readEnvelope>;
  try {
    envelope = readEnvelope(JSON.parse(text));
  } catch {
    envelope = undefined;
  }
  if (!envelope || (status >= 500 && !isSuccessCode(envelope.code))) {
    if (moneyMoving) return unknownOutcome(ctx, `HTTP ${status} without a readable result`);
    // A 5xx or an unreadable answer does not say whether a change was made.
    const note = mayHaveArrivedNote(read);
    const options = { requestId: ctx.requestId, httpStatus: status, retryable: read };
    let error: GatewayError;
    if (envelope) {
      error = errorForCode(
        envelope.code,
        envelope.message ?? '',
        options,
        read ? '' : ` (HTTP ${status}${note})`,
      );
    } else if (status >= 500) {
      error = new GatewayApiError(`${name}: gateway answered HTTP ${status}${note}`, options);
    } else {
      error = new ResponseValidationError(
        `${name}: the answer is not a {code, message, data} envelope (HTTP ${status})${note}`,
        [],
        options,
      );
    }
    return retryIfRead(read, error);
  }
  if (isSuccessCode(envelope.code)) return { ok: true, code: envelope.code, data: envelope.data };
  if (MOVES_MONEY.has(name) && !isRefusedBeforeProcessing(envelope.code) && !alreadyPaid(name, envelope.code))
    return resultOfUnrefusedCode(ctx, status, envelope);
  return final(
    errorForCode(envelope.code, envelope.message ?? '', { requestId: ctx.requestId, httpStatus: status }),
  );
}

/** The charges: their answer is an order result with `orderStatus`. */
const CHARGES: ReadonlySet<string> = new Set(['confirmCharge', 'checkoutPayment', 'localPayment']);

/** The charges that make a gateway page for the shopper instead of taking the money themselves. */
const PAGE_CALLS: ReadonlySet<string> = new Set(['checkoutPayment', 'localPayment']);

/**
 * Calls that move money: the charges and refund creation. createPaymentMethod is money-moving for the
 * retry policy only (it is never sent twice) and keeps the plain code errors.
 */
const MOVES_MONEY: ReadonlySet<string> = new Set([...CHARGES, 'createRefund']);

/**
 * "This orderNo was already paid" (I0061) answering a charge stays the GatewayApiError carrying that code
 * (docs/gateway-protocol.md#error-codes): startPayment reads it as the unknown "already paid" outcome.
 */
const alreadyPaid = (name: string, code: string) => code === DUPLICATE_ORDER_CODE && CHARGES.has(name);

/** `data.redirectUrl` of an answer when it names one. */
function redirectUrlOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { redirectUrl } = data as Record<string, unknown>;
  return typeof redirectUrl === 'string' && redirectUrl.trim() !== '' ? redirectUrl : undefined;
}

/** `data.orderStatus` of an answer, trimmed and lower-cased; undefined when there is none. */
function orderStatusOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { orderStatus } = data as Record<string, unknown>;
  return typeof orderStatus === 'string' ? orderStatus.trim().toLowerCase() : undefined;
}

/**
 * A charge or refund answered with a code the gateway does not document as a refusal before processing
 * (S0001, L0004, anything unpublished; I0061 of a refund): it may have moved money. A charge's data is
 * read when its orderStatus says `success` or `pending` (it is then parsed like any answer). A hosted or
 * local payment whose data names no page is refused (nothing can be paid without it); anything else (no
 * data, `fail`, a status not read, a page without a status) is an unknown outcome carrying the
 * gateway's code (docs/gateway-protocol.md#error-codes).
 */
function resultOfUnrefusedCode(
  ctx: AttemptContext,
  status: number,
  envelope: NonNullable<ReturnType<typeof readEnvelope>>,
): AttemptResult {
  const { name } = ctx.operation;
  const orderStatus = CHARGES.has(name) ? orderStatusOf(envelope.data) : undefined;
  if (orderStatus === 'success' || orderStatus === 'pending')
    return { ok: true, code: envelope.code, data: envelope.data };
  // A hosted or local payment only makes a page: with no page to send the shopper to, nothing can be
  // paid, so it is refused as answered, and the shopper may choose again at once. One that names a
  // page without saying more may be payable there: unknown, below.
  if (PAGE_CALLS.has(name) && !redirectUrlOf(envelope.data)) {
    return final(
      errorForCode(envelope.code, envelope.message ?? '', { requestId: ctx.requestId, httpStatus: status }),
    );
  }
  const said = `${envelope.code} ${envelope.message ?? ''}`.trim();
  return final(
    new UnknownOutcomeError(
      `${name}: the outcome is unknown (the gateway answered ${said}, which is not a documented refusal); ${ctx.operation.unknownOutcomeAdvice ?? CHARGE_ADVICE}`,
      name,
      { requestId: ctx.requestId, httpStatus: status, code: envelope.code },
    ),
  );
}
