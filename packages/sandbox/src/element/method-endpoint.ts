/**
 * `POST /V2022-03/element/payment_methods`: the call the card iframe makes (docs/card-element.md). Not
 * signed: the session token stands for the merchant that asked for it, and the method is that merchant's.
 * Answers `{ code: "0", message, data }` or `{ code, message }` with the sandbox's usual error codes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxContext } from '../context.js';
import { createPaymentMethodRequestSchema, ERROR_CODES, safeParseFast } from '../core.js';
import { formatIssues } from '../operations/index.js';
import { storePaymentMethod } from '../operations/payment-methods.js';
import { liveSessionToken } from '../operations/session-tokens.js';
import { GatewayReply } from '../replies.js';
import { API_PREFIX } from '../router.js';

export const ELEMENT_METHODS_PATH = `${API_PREFIX}/element/payment_methods`;

/** The element's own success code, distinct from the API's `00000` (docs/card-element.md). */
export const ELEMENT_SUCCESS_CODE = '0';

export type ElementAnswer =
  | {
      code: typeof ELEMENT_SUCCESS_CODE;
      message: 'success';
      data: { customerPaymentMethodId: string; card: { brand: string; last4: string } };
    }
  | { code: string; message: string };

const refuse = (code: string, message: string): ElementAnswer => ({ code, message });

/** The card's last valid month, on the sandbox clock: a card expiring this month is still good. */
function expired(month: string, year: string, now: number): boolean {
  const today = new Date(now);
  const current = today.getUTCFullYear() * 12 + today.getUTCMonth();
  return Number(year) * 12 + (Number(month) - 1) < current;
}

/**
 * Refuses what did not come from the iframe's own page: a browser on another origin says so in
 * `sec-fetch-site`, and a JSON content type makes any cross-origin browser call a preflight the sandbox
 * never grants. Server-side callers (the test helper) send neither header problem.
 */
function fromOwnPage(headers: IncomingHttpHeaders): string | undefined {
  const type = String(headers['content-type'] ?? '');
  if (!/^application\/json\s*(;|$)/i.test(type)) return 'content-type must be application/json';
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return 'only the card element page may call this endpoint';
  return undefined;
}

export function createElementMethod(
  context: SandboxContext,
  headers: IncomingHttpHeaders,
  rawBody: string,
): ElementAnswer {
  const origin = fromOwnPage(headers);
  if (origin) return refuse(ERROR_CODES.PARAM, `request param error: ${origin}`);
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return refuse(ERROR_CODES.PARAM, 'request param error: body: not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return refuse(ERROR_CODES.PARAM, 'request param error: body: must be a JSON object');
  const { sessionToken, billingDetail, card, customerId } = body as Record<string, unknown>;
  if (typeof sessionToken !== 'string' || sessionToken.length === 0 || sessionToken.length > 512)
    return refuse(ERROR_CODES.PARAM_NULL, 'param is null or incorrect: sessionToken is missing');
  const token = liveSessionToken(context, sessionToken);
  if (!token)
    return refuse(ERROR_CODES.PARAM_NULL, 'param is null or incorrect: sessionToken is unknown or expired');

  // The SDK sends `customerId: ''` for "no customer" (docs/card-element.md): the same as none.
  const fields = { billingDetail, card, customerId: customerId === '' ? undefined : customerId };
  const parsed = safeParseFast(createPaymentMethodRequestSchema, fields);
  if (!parsed.success)
    return refuse(ERROR_CODES.PARAM, `request param error: ${formatIssues(parsed.error.issues)}`);
  const { cardExpireMonth, cardExpireYear } = parsed.data.card;
  if (expired(cardExpireMonth, cardExpireYear, context.clock.now()))
    return refuse(ERROR_CODES.PARAM, 'request param error: card.cardExpireYear: the card has expired');
  try {
    const method = storePaymentMethod(context, token.gatewayNo, parsed.data);
    return {
      code: ELEMENT_SUCCESS_CODE,
      message: 'success',
      data: { customerPaymentMethodId: method.customerPaymentMethodId, card: { ...method.card } },
    };
  } catch (error) {
    // storePaymentMethod refuses a customerId that is not this merchant's with the API's own reply.
    if (error instanceof GatewayReply) return refuse(error.code, error.message);
    throw error;
  }
}
