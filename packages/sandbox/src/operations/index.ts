/**
 * One handler per operation of core's OPERATIONS table (both hosts: a sandbox serves the payment API and
 * the OpenAPI calls under one base), with the core schema that validates its input.
 * `satisfies Record<OperationName, …>` makes a new operation in core a compile error here.
 */
import type { z } from 'zod';
import type { SandboxContext } from '../context.js';
import {
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createCustomerRequestSchema,
  createPaymentMethodRequestSchema,
  createRefundRequestSchema,
  ERROR_CODES,
  listChargebacksQuerySchema,
  listCustomersQuerySchema,
  listTransactionsQuerySchema,
  localPaymentRequestSchema,
  safeParseFast,
  updatePaymentMethodRequestSchema,
} from '../core.js';
import { GatewayReply } from '../replies.js';
import type { OperationName } from '../router.js';
import { checkoutPayment, confirmCharge, localPayment } from './charges.js';
import { createCustomer, deleteCustomer, listCustomers, retrieveCustomer } from './customers.js';
import {
  attachPaymentMethod,
  createPaymentMethod,
  detachPaymentMethod,
  listPaymentMethods,
  retrievePaymentMethod,
  updatePaymentMethod,
} from './payment-methods.js';
import { listChargebacks, listTransactions, retrieveTransaction } from './queries.js';
import { createRefund, retrieveRefund } from './refunds.js';
import { createSessionToken } from './session-tokens.js';

export interface OperationInput {
  gatewayNo: string;
  pathParams: Record<string, string>;
  query: Record<string, string>;
  rawBody: string;
}

type Handler = (context: SandboxContext, input: OperationInput) => unknown;

/** Field errors name the path and the rule, never the value (it may be a card number). */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ');
}

function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = safeParseFast(schema, value);
  if (!result.success) throw new GatewayReply(ERROR_CODES.PARAM, formatIssues(result.error.issues));
  return result.data;
}

const BLANK = /^\s*$/;

function jsonBody<T extends z.ZodType>(schema: T, rawBody: string): z.output<T> {
  // A test, not trim(): trim would copy every request body.
  if (BLANK.test(rawBody)) throw new GatewayReply(ERROR_CODES.PARAM_NULL, 'request body is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new GatewayReply(ERROR_CODES.PARAM, 'body: not valid JSON');
  }
  return parseWith(schema, parsed);
}

/** Query values arrive as text; integers are turned into numbers so the schema can range-check them. */
function numericQuery(query: Record<string, string>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(query))
    out[key] = /^\d{1,15}$/.test(value) ? Number(value) : value;
  return out;
}

const PAGING = new Set(['pageIndex', 'pageSize']);

/** Only the paging values become numbers: an orderNo or tradeNo of digits stays text. */
function pagingQuery(query: Record<string, string>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(query))
    out[key] = PAGING.has(key) && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return out;
}

const param = (input: OperationInput, name: string): string => input.pathParams[name] ?? '';

export const HANDLERS = {
  confirmCharge: (context, input) =>
    confirmCharge(context, input.gatewayNo, jsonBody(confirmChargeRequestSchema, input.rawBody)),
  createPaymentMethod: (context, input) =>
    createPaymentMethod(context, input.gatewayNo, jsonBody(createPaymentMethodRequestSchema, input.rawBody)),
  updatePaymentMethod: (context, input) =>
    updatePaymentMethod(context, input.gatewayNo, jsonBody(updatePaymentMethodRequestSchema, input.rawBody)),
  retrievePaymentMethod: (context, input) =>
    retrievePaymentMethod(context, input.gatewayNo, param(input, 'customerPaymentMethodId')),
  listPaymentMethods: (context, input) =>
    listPaymentMethods(context, input.gatewayNo, param(input, 'customerId')),
  attachPaymentMethod: (context, input) =>
    attachPaymentMethod(
      context,
      input.gatewayNo,
      param(input, 'customerPaymentMethodId'),
      param(input, 'customerId'),
    ),
  detachPaymentMethod: (context, input) =>
    detachPaymentMethod(context, input.gatewayNo, param(input, 'customerPaymentMethodId')),
  createCustomer: (context, input) =>
    createCustomer(context, input.gatewayNo, jsonBody(createCustomerRequestSchema, input.rawBody)),
  retrieveCustomer: (context, input) =>
    retrieveCustomer(context, input.gatewayNo, param(input, 'customerId')),
  listCustomers: (context, input) =>
    listCustomers(context, input.gatewayNo, parseWith(listCustomersQuerySchema, numericQuery(input.query))),
  deleteCustomer: (context, input) => deleteCustomer(context, input.gatewayNo, param(input, 'customerId')),
  checkoutPayment: (context, input) =>
    checkoutPayment(context, input.gatewayNo, jsonBody(checkoutPaymentRequestSchema, input.rawBody)),
  localPayment: (context, input) =>
    localPayment(context, input.gatewayNo, jsonBody(localPaymentRequestSchema, input.rawBody)),
  // Bodyless: whatever body came was signed and is ignored, like the gateway's other bodyless calls.
  createSessionToken: (context, input) => createSessionToken(context, input.gatewayNo),
  createRefund: (context, input) =>
    createRefund(context, input.gatewayNo, jsonBody(createRefundRequestSchema, input.rawBody)),
  retrieveRefund: (context, input) => retrieveRefund(context, input.gatewayNo, param(input, 'batchNo')),
  listTransactions: (context, input) =>
    listTransactions(
      context,
      input.gatewayNo,
      parseWith(listTransactionsQuerySchema, pagingQuery(input.query)),
    ),
  retrieveTransaction: (context, input) =>
    retrieveTransaction(context, input.gatewayNo, param(input, 'tradeNo')),
  listChargebacks: (context, input) =>
    listChargebacks(
      context,
      input.gatewayNo,
      parseWith(listChargebacksQuerySchema, pagingQuery(input.query)),
    ),
} satisfies Record<OperationName, Handler>;

export function runOperation(name: OperationName, context: SandboxContext, input: OperationInput): unknown {
  return HANDLERS[name](context, input);
}
