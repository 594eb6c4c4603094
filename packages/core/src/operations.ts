/**
 * The operations of docs/gateway-protocol.md#operations as data (the 13 of the payment API and the card
 * element's session token, then the OpenAPI host's refunds and record queries): the client sends from
 * this table and the sandbox routes from it, so both always agree on host, method, path, path
 * parameters, schemas, which calls move money and which are plain reads.
 */
import { z } from 'zod';
import { chargeResultSchema, confirmChargeRequestSchema } from './schemas/charges.js';
import {
  createCustomerRequestSchema,
  customerListSchema,
  customerSchema,
  listCustomersQuerySchema,
} from './schemas/customers.js';
import {
  checkoutPaymentRequestSchema,
  localPaymentRequestSchema,
  preOrderResultSchema,
} from './schemas/hosted-payments.js';
import {
  createPaymentMethodRequestSchema,
  paymentMethodListSchema,
  paymentMethodOrNothingSchema,
  paymentMethodSchema,
  updatePaymentMethodRequestSchema,
} from './schemas/payment-methods.js';
import {
  createRefundRequestSchema,
  createRefundResultSchema,
  refundRecordSchema,
} from './schemas/refunds.js';
import { sessionTokenSchema } from './schemas/session-tokens.js';
import {
  chargebackListSchema,
  listChargebacksQuerySchema,
  listTransactionsQuerySchema,
  transactionListSchema,
  transactionRecordSchema,
} from './schemas/transactions.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/**
 * Which of the gateway's two hosts serves an operation: the payment API, or the OpenAPI host
 * (refunds, record queries). A baseUrl (the sandbox) serves both.
 */
export type OperationHost = 'payment' | 'openapi';

export interface OperationDefinition {
  name: string;
  host: OperationHost;
  method: HttpMethod;
  /** Path below `/V2022-03`, with `{param}` placeholders. */
  path: string;
  pathParams: readonly string[];
  request?: z.ZodType | undefined;
  query?: z.ZodType | undefined;
  result: z.ZodType;
  /** Money-moving calls are never retried once the request may have reached the gateway. */
  moneyMoving: boolean;
  /**
   * A read changes nothing at the gateway, so it may be sent again after an attempt that may have
   * arrived (timeout, reset, 5xx). Every other call is retried only when it provably never left.
   */
  read: boolean;
  /**
   * What an unknown outcome of this money-moving call means and what to do (the error message's end);
   * by default the charge's advice: the charge may exist, wait for its callback or return.
   */
  unknownOutcomeAdvice?: string | undefined;
}

const nothing = z.unknown().transform(() => null);

function op<const T extends OperationDefinition>(definition: T): T {
  return definition;
}

export const OPERATIONS = [
  op({
    name: 'confirmCharge',
    host: 'payment',
    method: 'POST',
    path: '/confirmCharge',
    pathParams: [],
    request: confirmChargeRequestSchema,
    result: chargeResultSchema,
    moneyMoving: true,
    read: false,
  }),
  op({
    name: 'createPaymentMethod',
    host: 'payment',
    method: 'POST',
    path: '/payment_methods',
    pathParams: [],
    request: createPaymentMethodRequestSchema,
    result: paymentMethodSchema,
    moneyMoving: true,
    read: false,
  }),
  op({
    name: 'updatePaymentMethod',
    host: 'payment',
    method: 'POST',
    path: '/payment_methods/update',
    pathParams: [],
    request: updatePaymentMethodRequestSchema,
    result: paymentMethodSchema,
    moneyMoving: false,
    read: false,
  }),
  op({
    name: 'retrievePaymentMethod',
    host: 'payment',
    method: 'GET',
    path: '/payment_methods/{customerPaymentMethodId}',
    pathParams: ['customerPaymentMethodId'],
    result: paymentMethodSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'listPaymentMethods',
    host: 'payment',
    method: 'GET',
    path: '/payment_methods/list/{customerId}',
    pathParams: ['customerId'],
    result: paymentMethodListSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'attachPaymentMethod',
    host: 'payment',
    method: 'GET',
    path: '/payment_methods/{customerPaymentMethodId}/{customerId}/attach',
    pathParams: ['customerPaymentMethodId', 'customerId'],
    result: paymentMethodOrNothingSchema,
    moneyMoving: false,
    // GET on the wire, but it changes the customer's methods: not a read.
    read: false,
  }),
  op({
    name: 'detachPaymentMethod',
    host: 'payment',
    method: 'GET',
    path: '/payment_methods/{customerPaymentMethodId}/detach',
    pathParams: ['customerPaymentMethodId'],
    result: paymentMethodOrNothingSchema,
    moneyMoving: false,
    // GET on the wire, but it changes the customer's methods: not a read.
    read: false,
  }),
  op({
    name: 'createCustomer',
    host: 'payment',
    method: 'POST',
    path: '/customers',
    pathParams: [],
    request: createCustomerRequestSchema,
    result: customerSchema,
    moneyMoving: false,
    read: false,
  }),
  op({
    name: 'retrieveCustomer',
    host: 'payment',
    method: 'GET',
    path: '/customers/{customerId}',
    pathParams: ['customerId'],
    result: customerSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'listCustomers',
    host: 'payment',
    method: 'GET',
    path: '/customers',
    pathParams: [],
    query: listCustomersQuerySchema,
    result: customerListSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'deleteCustomer',
    host: 'payment',
    method: 'DELETE',
    path: '/customers/{customerId}',
    pathParams: ['customerId'],
    result: nothing,
    moneyMoving: false,
    read: false,
  }),
  op({
    name: 'checkoutPayment',
    host: 'payment',
    method: 'POST',
    path: '/checkout/payment',
    pathParams: [],
    request: checkoutPaymentRequestSchema,
    result: preOrderResultSchema,
    moneyMoving: true,
    read: false,
  }),
  op({
    name: 'localPayment',
    host: 'payment',
    method: 'POST',
    path: '/local_payment',
    pathParams: [],
    request: localPaymentRequestSchema,
    result: preOrderResultSchema,
    moneyMoving: true,
    read: false,
  }),
  op({
    // Bodyless POST: signed over the header part only (docs/signing.md#requests). A second token
    // harms nothing, so the call may be sent again like a read.
    name: 'createSessionToken',
    host: 'payment',
    method: 'POST',
    path: '/sessionToken',
    pathParams: [],
    result: sessionTokenSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'createRefund',
    host: 'openapi',
    method: 'POST',
    path: '/refund',
    pathParams: [],
    request: createRefundRequestSchema,
    result: createRefundResultSchema,
    moneyMoving: true,
    read: false,
    unknownOutcomeAdvice:
      "the refund may have been made. Do not send it again blindly: its refund notification (which carries the merTrackNo) or the gateway's records decide; a resend must carry the same merTrackNo.",
  }),
  op({
    name: 'retrieveRefund',
    host: 'openapi',
    method: 'GET',
    path: '/refund/{batchNo}',
    pathParams: ['batchNo'],
    result: refundRecordSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'listTransactions',
    host: 'openapi',
    method: 'GET',
    path: '/transactions',
    pathParams: [],
    query: listTransactionsQuerySchema,
    result: transactionListSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'retrieveTransaction',
    host: 'openapi',
    method: 'GET',
    path: '/orderInfo/{tradeNo}',
    pathParams: ['tradeNo'],
    result: transactionRecordSchema,
    moneyMoving: false,
    read: true,
  }),
  op({
    name: 'listChargebacks',
    host: 'openapi',
    method: 'GET',
    path: '/chargebacks',
    pathParams: [],
    query: listChargebacksQuerySchema,
    result: chargebackListSchema,
    moneyMoving: false,
    read: true,
  }),
] as const;

export type OperationName = (typeof OPERATIONS)[number]['name'];

const BY_NAME = new Map<string, OperationDefinition>(
  OPERATIONS.map((operation) => [operation.name, operation]),
);

export function getOperation(name: OperationName): OperationDefinition {
  const operation = BY_NAME.get(name);
  if (!operation) throw new Error(`Unknown gateway operation ${name}`);
  return operation;
}

/** Fills `{param}` placeholders with URL-encoded values. */
export function buildOperationPath(
  operation: OperationDefinition,
  pathParams: Readonly<Record<string, string>>,
): string {
  // Most operations have no path parameter: their path is used as it is, without a regex pass.
  if (operation.pathParams.length === 0) return operation.path;
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(pathParams[name] ?? ''),
  );
}
