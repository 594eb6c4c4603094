/**
 * Signed HTTP transport over an undici keep-alive pool, with the retry policy of docs/safety-rules.md#retry-policy
 * (attempt-result.ts): reads retry network errors and 5xx (jittered backoff, overall deadline); every
 * other call is retried only when the request provably never left.
 * Every attempt gets a fresh request-id and request-time and is signed again.
 */
import type { Dispatcher } from 'undici';
import { type AttemptResult, resultOfAnswer, resultOfTransportError } from './attempt-result.js';
import { GATEWAY_API_VERSION } from './codes.js';
import { GatewayError } from './errors.js';
import { exchange } from './http-exchange.js';
import type { GatewayLogger } from './logger.js';
import { buildOperationPath, type OperationDefinition } from './operations.js';
import { newRequestId } from './request-id.js';
import { signRequest } from './signing.js';

export interface TransportConfig {
  baseUrl: string;
  gatewayNo: string;
  signKey: string;
  dispatcher: Dispatcher;
  /** Per attempt. */
  timeoutMs: number;
  /** Over all attempts of one call. */
  deadlineMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  logger?: GatewayLogger | undefined;
  now: () => number;
}

export interface TransportCall {
  operation: OperationDefinition;
  pathParams?: Readonly<Record<string, string>> | undefined;
  query?: Readonly<Record<string, string | number>> | undefined;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface TransportResult {
  data: unknown;
  code: string;
  requestId: string;
}

const NO_PATH_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class SignedTransport {
  private readonly origin: string;
  /** Path of the base URL, for gateways mounted below the host root. */
  private readonly pathPrefix: string;

  constructor(private readonly config: TransportConfig) {
    const base = new URL(config.baseUrl);
    this.origin = base.origin;
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
  }

  /**
   * One async function for the whole call, attempts included: each nested async layer costs promise
   * allocations and microtask hops on every request, and this is the client's hot path.
   */
  async send(call: TransportCall): Promise<TransportResult> {
    const { config } = this;
    const { operation } = call;
    const deadline = config.now() + config.deadlineMs;
    const pathParams = call.pathParams ?? NO_PATH_PARAMS;
    // The URL is the same for every attempt; only request-id, request-time and the signature change.
    const path = `/${GATEWAY_API_VERSION}${buildOperationPath(operation, pathParams)}`;
    const requestPath = `${this.pathPrefix}${path}${call.query ? `?${queryString(call.query)}` : ''}`;
    for (let attempt = 1; ; attempt += 1) {
      // Aborted before this attempt left: nothing was sent, so it is a plain abort, never an unknown outcome.
      if (call.signal?.aborted) {
        throw new GatewayError(`${operation.name}: aborted by the caller before sending`, {
          code: 'ABORTED',
          cause: call.signal.reason,
        });
      }
      const timeoutMs = Math.max(1, Math.min(call.timeoutMs ?? config.timeoutMs, deadline - config.now()));
      const requestId = newRequestId();
      const requestTime = String(config.now());
      const headers: Record<string, string> = {
        'gateway-no': config.gatewayNo,
        'request-id': requestId,
        'request-time': requestTime,
        'sign-info': signRequest({
          signKey: config.signKey,
          gatewayNo: config.gatewayNo,
          requestId,
          requestTime,
          pathParams,
          query: call.query,
          body: call.body,
        }),
        'content-type': 'application/json;charset=UTF-8',
        accept: 'application/json',
      };
      // Timed only for the logger: the client's hot path skips it when nobody listens.
      const begin = config.logger ? performance.now() : 0;
      config.logger?.({
        type: 'request',
        operation: operation.name,
        method: operation.method,
        path,
        requestId,
        attempt,
      });
      const ctx = { operation, requestId, timeoutMs, callerAborted: false };
      let result: AttemptResult;
      let httpStatus = 0;
      try {
        const answer = await exchange(
          config.dispatcher,
          {
            origin: this.origin,
            path: requestPath,
            method: operation.method,
            headers,
            body: call.body,
            // undici's own timers: far cheaper per request than an AbortSignal.timeout (short
            // timeouts get a precise timer in exchange(): undici's tick about once a second).
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          },
          call.signal,
          timeoutMs,
        );
        httpStatus = answer.status;
        result = resultOfAnswer(ctx, httpStatus, answer.text);
      } catch (error) {
        ctx.callerAborted = call.signal?.aborted === true;
        result = resultOfTransportError(ctx, error);
      }
      const durationMs = config.logger ? performance.now() - begin : 0;
      if (result.ok) {
        config.logger?.({
          type: 'response',
          operation: operation.name,
          requestId,
          attempt,
          httpStatus,
          code: result.code,
          durationMs,
        });
        return { data: result.data, code: result.code, requestId };
      }
      // A GatewayError's message is already redacted (its constructor), so it can be logged as is.
      const { error } = result;
      config.logger?.({
        type: 'error',
        operation: operation.name,
        requestId,
        attempt,
        error: error.message,
        durationMs,
      });
      const delay = config.retryBaseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
      const canRetry = result.retry && attempt <= config.maxRetries && config.now() + delay < deadline;
      if (!canRetry) throw error;
      config.logger?.({
        type: 'retry',
        operation: operation.name,
        requestId: error.requestId ?? '',
        attempt,
        delayMs: Math.round(delay),
        reason: error.message,
      });
      await sleep(delay, call.signal);
    }
  }
}

/** Query string of the values as sent (URL-encoded); signing uses the same values unencoded. */
function queryString(query: Readonly<Record<string, string | number>>): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(query)) params.append(key, String(query[key]));
  return params.toString();
}
