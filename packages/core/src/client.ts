/**
 * GatewayClient: the typed, signed client for the 13 operations of API V2022-03, the card element's
 * session token and the OpenAPI host's refunds and record queries
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks). Input is validated against the
 * gateway's constraints (docs/gateway-protocol.md#request-constraints) before anything is sent; answers
 * are parsed into typed `data`.
 */
import { type Dispatcher, Pool } from 'undici';
import { UnknownOutcomeError, type ValidationIssue } from './errors.js';
import {
  BASE_URL_RULE,
  ENVIRONMENT_RULE,
  GATEWAY_NO_RULE,
  type GatewayEnvironment,
  gatewayBaseUrlsOf,
  isGatewayEnvironment,
  isGatewayNo,
  normalizeGatewayBaseUrl,
} from './gateway-config.js';
import type { GatewayLogger } from './logger.js';
import { getOperation, type OperationHost, type OperationName } from './operations.js';
import type { ChargeResult, ConfirmChargeRequest } from './schemas/charges.js';
import type {
  CreateCustomerRequest,
  Customer,
  CustomerList,
  ListCustomersQuery,
} from './schemas/customers.js';
import type {
  CheckoutPaymentRequest,
  LocalPaymentRequest,
  PreOrderResult,
} from './schemas/hosted-payments.js';
import type {
  CreatePaymentMethodRequest,
  PaymentMethod,
  UpdatePaymentMethodRequest,
} from './schemas/payment-methods.js';
import type { CreateRefundRequest, CreateRefundResult, RefundRecord } from './schemas/refunds.js';
import type { SessionToken } from './schemas/session-tokens.js';
import type {
  ChargebackList,
  ListChargebacksQuery,
  ListTransactionsQuery,
  TransactionList,
  TransactionRecord,
} from './schemas/transactions.js';
import { SignedTransport } from './transport.js';
import { invalidInput, parseRequest, parseResponse } from './validation.js';

export type { GatewayEnvironment } from './gateway-config.js';

/** Where the payment host serves the card element's browser SDK (docs/gateway-protocol.md#session-tokens). */
export const ELEMENT_SCRIPT_PATH = '/static/v3/js/AsiabillPayment.min.js';

interface CommonOptions {
  gatewayNo: string;
  signKey: string;
  /** Per-attempt timeout (default 30 s). */
  timeoutMs?: number;
  /** Overall time for one call including retries (default 60 s). */
  deadlineMs?: number;
  /** Retries for reads and for calls that never reached the gateway (default 2). */
  maxRetries?: number;
  /** First backoff delay; doubled per retry with jitter (default 250 ms). */
  retryBaseDelayMs?: number;
  logger?: GatewayLogger;
  /** Custom undici dispatcher; by default the client owns a keep-alive pool. */
  dispatcher?: Dispatcher;
  /** Keep-alive connections of each of the client's own pools, one per host (default 16). */
  connections?: number;
}

export type GatewayClientOptions =
  | (CommonOptions & { environment: GatewayEnvironment; baseUrl?: undefined })
  | (CommonOptions & { baseUrl: string; environment?: undefined });

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

function configIssues(options: GatewayClientOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const raw = options as Partial<GatewayClientOptions> & { environment?: unknown; baseUrl?: unknown };
  // The field rules of parseGatewayConfig, without its trimming or defaults: a client is built from
  // settings already parsed, or by code. Any non-blank sign key is taken (tests sign with short ones).
  if (!isGatewayNo(raw.gatewayNo)) issues.push({ path: 'gatewayNo', message: GATEWAY_NO_RULE });
  if (typeof raw.signKey !== 'string' || raw.signKey.trim().length === 0) {
    issues.push({ path: 'signKey', message: 'is required (the sign key issued with the gateway number)' });
  }
  if (raw.environment !== undefined && raw.baseUrl !== undefined) {
    issues.push({ path: 'environment', message: 'give either environment or baseUrl, not both' });
  } else if (raw.environment === undefined && raw.baseUrl === undefined) {
    issues.push({ path: 'environment', message: "is required: 'test' or 'live' (or give baseUrl)" });
  } else if (raw.environment !== undefined && !isGatewayEnvironment(raw.environment)) {
    issues.push({ path: 'environment', message: ENVIRONMENT_RULE });
  } else if (raw.baseUrl !== undefined && !normalizeGatewayBaseUrl(raw.baseUrl)) {
    issues.push({ path: 'baseUrl', message: BASE_URL_RULE });
  }
  return issues;
}

/** The query as signed and sent: parsed values, without the options left out (undefined). */
function definedValues(query: Record<string, string | number | undefined>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function requireId(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 100) {
    throw invalidInput(path, [{ path, message: 'must be a non-empty string of at most 100 characters' }]);
  }
  return value;
}

export class GatewayClient {
  readonly gatewayNo: string;
  /** Base URL of the payment API operations. */
  readonly baseUrl: string;
  /** Base URL of the OpenAPI operations (refunds, record queries); the baseUrl itself for a sandbox. */
  readonly openApiBaseUrl: string;
  /**
   * The browser SDK of the card element (docs/gateway-protocol.md#session-tokens), served by the
   * payment host: `{payment base URL}/static/v3/js/AsiabillPayment.min.js` (a sandbox serves its own).
   */
  readonly elementScriptUrl: string;
  private readonly transports: Record<OperationHost, SignedTransport>;
  private readonly ownedPools: Pool[] = [];

  // Plain arrows (not async): `call` is async, so any error still arrives as a rejection, and the
  // wrapper would only add a promise and microtask hops to every call. Ids are checked in `call`.
  readonly customers = {
    create: (body: CreateCustomerRequest, options?: CallOptions) =>
      this.call<Customer>('createCustomer', { body }, options),
    retrieve: (customerId: string, options?: CallOptions) =>
      this.call<Customer>('retrieveCustomer', { pathParams: { customerId } }, options),
    list: (query: ListCustomersQuery = {}, options?: CallOptions) =>
      this.call<CustomerList>('listCustomers', { query }, options),
    delete: (customerId: string, options?: CallOptions) =>
      this.call<null>('deleteCustomer', { pathParams: { customerId } }, options),
  };

  readonly paymentMethods = {
    create: (body: CreatePaymentMethodRequest, options?: CallOptions) =>
      this.call<PaymentMethod>('createPaymentMethod', { body }, options),
    update: (body: UpdatePaymentMethodRequest, options?: CallOptions) =>
      this.call<PaymentMethod>('updatePaymentMethod', { body }, options),
    retrieve: (customerPaymentMethodId: string, options?: CallOptions) =>
      this.call<PaymentMethod>('retrievePaymentMethod', { pathParams: { customerPaymentMethodId } }, options),
    list: (customerId: string, options?: CallOptions) =>
      this.call<PaymentMethod[]>('listPaymentMethods', { pathParams: { customerId } }, options),
    attach: (customerPaymentMethodId: string, customerId: string, options?: CallOptions) =>
      this.call<PaymentMethod | null>(
        'attachPaymentMethod',
        { pathParams: { customerPaymentMethodId, customerId } },
        options,
      ),
    detach: (customerPaymentMethodId: string, options?: CallOptions) =>
      this.call<PaymentMethod | null>(
        'detachPaymentMethod',
        { pathParams: { customerPaymentMethodId } },
        options,
      ),
  };

  /**
   * Session tokens of the card element: one per checkout render, valid 30 minutes, handed to the
   * shopper's page (never the sign key). Safe to send again: a second token harms nothing.
   */
  readonly sessionTokens = {
    create: (options?: CallOptions) => this.call<SessionToken>('createSessionToken', {}, options),
  };

  readonly charges = {
    confirm: (body: ConfirmChargeRequest, options?: CallOptions) =>
      this.call<ChargeResult>('confirmCharge', { body }, options),
  };

  readonly checkout = {
    createPayment: (body: CheckoutPaymentRequest, options?: CallOptions) =>
      this.call<PreOrderResult>('checkoutPayment', { body }, options),
  };

  readonly localPayments = {
    create: (body: LocalPaymentRequest, options?: CallOptions) =>
      this.call<PreOrderResult>('localPayment', { body }, options),
  };

  /**
   * Refunds of a trade (OpenAPI host). `create` moves money: an answer that is lost is an
   * UnknownOutcomeError and is never sent again automatically; the refund notification decides.
   */
  readonly refunds = {
    create: (body: CreateRefundRequest, options?: CallOptions) =>
      this.call<CreateRefundResult>('createRefund', { body }, options),
    retrieve: (batchNo: string, options?: CallOptions) =>
      this.call<RefundRecord>('retrieveRefund', { pathParams: { batchNo } }, options),
  };

  /** The gateway's records of trades (OpenAPI host): what reconciliation reads. */
  readonly transactions = {
    list: (query: ListTransactionsQuery, options?: CallOptions) =>
      this.call<TransactionList>('listTransactions', { query }, options),
    retrieve: (tradeNo: string, options?: CallOptions) =>
      this.call<TransactionRecord>('retrieveTransaction', { pathParams: { tradeNo } }, options),
  };

  /** Chargebacks raised on the merchant's trades (OpenAPI host). */
  readonly chargebacks = {
    list: (query: ListChargebacksQuery, options?: CallOptions) =>
      this.call<ChargebackList>('listChargebacks', { query }, options),
  };

  constructor(options: GatewayClientOptions) {
    const issues = configIssues(options);
    if (issues.length > 0) {
      throw invalidInput('GatewayClient options', issues);
    }
    this.gatewayNo = options.gatewayNo;
    const urls = gatewayBaseUrlsOf(options);
    this.baseUrl = urls.payment;
    this.openApiBaseUrl = urls.openapi;
    this.elementScriptUrl = `${urls.payment}${ELEMENT_SCRIPT_PATH}`;
    const transportFor = (baseUrl: string) => {
      let dispatcher = options.dispatcher;
      if (!dispatcher) {
        const pool = new Pool(new URL(baseUrl).origin, {
          connections: options.connections ?? 16,
          keepAliveTimeout: 10_000,
        });
        this.ownedPools.push(pool);
        dispatcher = pool;
      }
      return new SignedTransport({
        baseUrl,
        gatewayNo: options.gatewayNo,
        signKey: options.signKey,
        dispatcher,
        timeoutMs: options.timeoutMs ?? 30_000,
        deadlineMs: options.deadlineMs ?? 60_000,
        maxRetries: options.maxRetries ?? 2,
        retryBaseDelayMs: options.retryBaseDelayMs ?? 250,
        logger: options.logger,
        now: Date.now,
      });
    };
    const payment = transportFor(urls.payment);
    // One host (a sandbox) shares one transport and one pool.
    this.transports = {
      payment,
      openapi: urls.openapi === urls.payment ? payment : transportFor(urls.openapi),
    };
  }

  /** Closes the client's own keep-alive connections. */
  async close(): Promise<void> {
    await Promise.all(this.ownedPools.map((pool) => pool.close()));
  }

  private async call<T>(
    name: OperationName,
    input: { body?: unknown; pathParams?: Record<string, string>; query?: unknown },
    options?: CallOptions,
  ): Promise<T> {
    const operation = getOperation(name);
    // Path values checked in the operation's parameter order (attach: payment method id, then customer).
    if (input.pathParams) for (const param of operation.pathParams) requireId(input.pathParams[param], param);
    let body: string | undefined;
    if (operation.request) {
      // Serialized once: this exact string is signed and sent.
      body = JSON.stringify(parseRequest(operation.request, input.body, `${name} request`));
    }
    const query = operation.query
      ? definedValues(
          parseRequest(operation.query, input.query, `${name} query`) as Record<
            string,
            string | number | undefined
          >,
        )
      : undefined;
    const result = await this.transports[operation.host].send({
      operation,
      pathParams: input.pathParams,
      query,
      body,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
    });
    const parsed = parseResponse(operation.result, result.data, name, result.requestId);
    if (parsed.ok) return parsed.value as T;
    if (operation.moneyMoving) {
      throw new UnknownOutcomeError(
        `${name}: the gateway accepted the request but its answer could not be read; the outcome is unknown`,
        name,
        { requestId: result.requestId, cause: parsed.error },
      );
    }
    throw parsed.error;
  }
}
