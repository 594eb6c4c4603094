/**
 * Signed HTTP transport over an undici keep-alive pool, with the retry policy of DESIGN §4:
 * reads retry network errors and 5xx (jittered backoff, overall deadline); money-moving POSTs are
 * retried only when the request provably never left; anything else after sending is an unknown outcome.
 * Every attempt gets a fresh request-id and request-time and is signed again.
 */
import type { Dispatcher } from 'undici';
import { type AttemptResult, resultOfAnswer, resultOfTransportError } from './attempt-result.js';
import { GATEWAY_API_VERSION } from './codes.js';
import type { GatewayError } from './errors.js';
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

/** What one attempt ended with; `retry` says whether another attempt is allowed by the policy. */
type AttemptFailure = { error: GatewayError; retry: boolean };

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

  async send(call: TransportCall): Promise<TransportResult> {
    const { config } = this;
    const started = config.now();
    const deadline = started + config.deadlineMs;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      const remaining = deadline - config.now();
      const outcome = await this.attempt(
        call,
        attempt,
        Math.max(1, Math.min(call.timeoutMs ?? config.timeoutMs, remaining)),
      );
      if (!('error' in outcome)) return outcome;
      const delay = config.retryBaseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
      const canRetry = outcome.retry && attempt <= config.maxRetries && config.now() + delay < deadline;
      if (!canRetry) throw outcome.error;
      config.logger?.({
        type: 'retry',
        operation: call.operation.name,
        requestId: outcome.error.requestId ?? '',
        attempt,
        delayMs: Math.round(delay),
        reason: outcome.error.message,
      });
      await sleep(delay, call.signal);
    }
  }

  private async attempt(
    call: TransportCall,
    attempt: number,
    timeoutMs: number,
  ): Promise<TransportResult | AttemptFailure> {
    const { config } = this;
    const { operation } = call;
    const requestId = newRequestId();
    const requestTime = String(config.now());
    const pathParams = call.pathParams ?? {};
    const path = `/${GATEWAY_API_VERSION}${buildOperationPath(operation, pathParams)}`;
    const queryString = call.query
      ? `?${new URLSearchParams(Object.entries(call.query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`
      : '';
    const signInfo = signRequest({
      signKey: config.signKey,
      gatewayNo: config.gatewayNo,
      requestId,
      requestTime,
      pathParams,
      query: call.query,
      body: call.body,
    });
    const headers: Record<string, string> = {
      'gateway-no': config.gatewayNo,
      'request-id': requestId,
      'request-time': requestTime,
      'sign-info': signInfo,
      'content-type': 'application/json;charset=UTF-8',
      accept: 'application/json',
    };
    const begin = performance.now();
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
      const response = await config.dispatcher.request({
        origin: this.origin,
        path: `${this.pathPrefix}${path}${queryString}`,
        method: operation.method,
        headers,
        body: call.body,
        signal: call.signal,
        // undici's own timers: far cheaper per request than an AbortSignal.timeout.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      httpStatus = response.statusCode;
      result = resultOfAnswer(ctx, httpStatus, await response.body.text());
    } catch (error) {
      result = resultOfTransportError({ ...ctx, callerAborted: call.signal?.aborted === true }, error);
    }
    const durationMs = performance.now() - begin;
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
    config.logger?.({
      type: 'error',
      operation: operation.name,
      requestId,
      attempt,
      error: result.error.message,
      durationMs,
    });
    return { error: result.error, retry: result.retry };
  }
}
