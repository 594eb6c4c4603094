/**
 * The HTTP server: `/V2022-03/*` is the gateway API, `/pay/*` the hosted pages, `/_sandbox/*` the
 * control API and `/` (or `/_sandbox/`) the dashboard. `startSandbox` runs it in-process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerThisTurn } from './answer-batch.js';
import { type CallbackChaos, type CallbackDelivery, CallbackEngine } from './callbacks.js';
import { type ChargebackInput, raiseChargeback } from './chargebacks.js';
import { VirtualClock } from './clock.js';
import { isoAt, type SandboxContext } from './context.js';
import { handleControl, moveClock, resetSandbox, type SandboxState, stateDump } from './control.js';
import { ERROR_CODES, redactBody, redactText } from './core.js';
import { renderDashboard } from './dashboard.js';
import { ELEMENT_METHODS_PATH } from './element/method-endpoint.js';
import { handleElementRequest } from './element/routes.js';
import { FaultEffects } from './fault-effects.js';
import { type FaultInput, FaultRegistry, type FaultRule } from './faults.js';
import { AllowedHosts, allowedHostsOf } from './host-check.js';
import { BodyTooLargeError, readBody, sendHtml, sendJson } from './http.js';
import { newShortId } from './ids.js';
import { runOperation } from './operations/index.js';
import { handlePage } from './pages.js';
import {
  addRefundOutcome,
  type RefundOutcomeInput,
  type SettleRefundInput,
  settleRefund,
} from './refunds.js';
import { type Envelope, GatewayReply, success } from './replies.js';
import { API_PREFIX, matchRoute } from './router.js';
import { type Merchant, RequestIdRegistry, verifyRequest } from './signature-check.js';
import {
  type ChargebackRecord,
  type OrderRecord,
  type RefundOutcomeRule,
  type RefundRecord,
  type RequestLogEntry,
  SandboxStore,
} from './store.js';

export const DEFAULT_MERCHANT: Merchant = { gatewayNo: '12345678', signKey: 'sandbox-sign-key' };

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the sandbox is not meant to be reachable from other machines. */
  host?: string;
  /** gateway-no / signKey pairs accepted; default one: 12345678 / sandbox-sign-key. */
  merchants?: Merchant[];
  /**
   * Factor compressing virtual waits into real time: the callback retry schedule (15 s … 2 h) and the
   * pending card's settlement. Default 1/1000 (a 15 s retry takes 15 ms); the CLI defaults to 1.
   */
  callbackTimeScale?: number;
  /** Base URL for redirectUrls (when the sandbox is reached through another host name). */
  publicUrl?: string;
  /** Virtual delay before the pending test card succeeds (default 5000 ms, compressed like retries). */
  pendingDelayMs?: number;
  /** Per-attempt timeout of callback POSTs in real ms (default 10000). */
  callbackTimeoutMs?: number;
  /**
   * More host names the sandbox answers under, gateway API included (IP addresses, `localhost`, the
   * bind host and the public URL's host always are): the defence against DNS rebinding, see
   * host-check.ts. A store that reaches the sandbox under another name adds it here.
   */
  allowedHosts?: readonly string[];
}

export interface SandboxClock {
  now(): number;
  readonly offsetMs: number;
  setOffset(offsetMs: number): void;
  advance(ms: number): void;
}

export interface Sandbox {
  /** e.g. `http://127.0.0.1:8600`, without `/V2022-03`: pass it as core's `baseUrl`. */
  url: string;
  /** `url` + `/V2022-03`. */
  apiUrl: string;
  /** Base of redirectUrls (publicUrl option, or `url`). */
  publicUrl: string;
  merchants: readonly Merchant[];
  /** The first merchant's credentials, for the common single-merchant case. */
  gatewayNo: string;
  signKey: string;
  clock: SandboxClock;
  close(): Promise<void>;
  reset(): void;
  state(): SandboxState;
  /** The latest order of an orderNo (any merchant), or by tradeNo. */
  order(orderNoOrTradeNo: string): OrderRecord | undefined;
  requests(): readonly RequestLogEntry[];
  addFault(input: FaultInput): FaultRule;
  clearFaults(): void;
  faults(): readonly FaultRule[];
  setClock(input: { offsetMs?: number; advanceMs?: number }): void;
  callbacks(): readonly CallbackDelivery[];
  redeliver(id: string): Promise<CallbackDelivery | undefined>;
  setChaos(chaos: CallbackChaos): CallbackChaos;
  /** Refunds (of one trade when given), in application order. */
  refunds(tradeNo?: string): readonly RefundRecord[];
  refund(batchNo: string): RefundRecord | undefined;
  /** Makes the next refund(s) `fail` or stay `pending` (`times`, default 1; `tradeNo` to aim at one trade). */
  addRefundOutcome(input: RefundOutcomeInput): RefundOutcomeRule;
  refundOutcomes(): readonly RefundOutcomeRule[];
  clearRefundOutcomes(): void;
  /** Settles a pending refund and sends its `refund.success` / `refund.fail` notification. */
  settleRefund(batchNo: string, input: SettleRefundInput): RefundRecord;
  /** Raises a chargeback on a paid trade and sends its `chargeback.success` notification. */
  raiseChargeback(input: ChargebackInput): ChargebackRecord;
  /** Chargebacks (of one trade when given), in the order raised. */
  chargebacks(tradeNo?: string): readonly ChargebackRecord[];
  /** Polls the delivery log until `predicate` holds (default timeout 5 s). */
  waitForCallbacks(
    predicate: (deliveries: readonly CallbackDelivery[]) => boolean,
    timeoutMs?: number,
  ): Promise<readonly CallbackDelivery[]>;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

class SandboxServer {
  readonly context: SandboxContext;
  private readonly faultEffects = new FaultEffects();
  private readonly allowedHosts: AllowedHosts;
  private baseUrl = '';

  constructor(
    merchants: readonly Merchant[],
    private readonly options: SandboxOptions,
  ) {
    const clock = new VirtualClock();
    const merchantMap = new Map(merchants.map((merchant) => [merchant.gatewayNo, merchant]));
    const timeScale = options.callbackTimeScale ?? 1 / 1000;
    this.allowedHosts = allowedHostsOf(options.publicUrl, [
      ...(options.host ? [options.host] : []),
      ...(options.allowedHosts ?? []),
    ]);
    this.context = {
      store: new SandboxStore(),
      clock,
      callbacks: new CallbackEngine({
        clock,
        merchants: merchantMap,
        timeScale,
        attemptTimeoutMs: options.callbackTimeoutMs ?? 10_000,
      }),
      faults: new FaultRegistry(),
      requestIds: new RequestIdRegistry(clock),
      merchants: merchantMap,
      publicUrl: () => this.publicUrl,
      pendingDelayMs: options.pendingDelayMs ?? 5000,
      timeScale,
    };
  }

  get publicUrl(): string {
    return (this.options.publicUrl ?? this.baseUrl).replace(/\/+$/, '');
  }

  set url(value: string) {
    this.baseUrl = value;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let rawBody = '';
    // A request without content-length or transfer-encoding has no body (RFC 9112 §6.3): reading the
    // empty stream would only cost listeners and a promise on every GET.
    if (
      request.headers['content-length'] !== undefined ||
      request.headers['transfer-encoding'] !== undefined
    ) {
      try {
        rawBody = (await readBody(request)).toString('utf8');
      } catch (error) {
        if (error instanceof BodyTooLargeError && !response.headersSent)
          sendJson(response, 413, { error: error.message });
        return;
      }
    }
    const target = request.url ?? '/';
    // The API path is split by hand: `new URL` per request is measurable at gateway request rates.
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const isApi = path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
    // The signed API too: the demo merchant's key is public, so a rebinding page can sign (host-check.ts).
    const unknownHost = this.allowedHosts.refusal(request);
    if (unknownHost) {
      sendJson(response, 403, {
        error: `the sandbox answers under its own host names only (${unknownHost}); add a name with --allowed-host or SANDBOX_ALLOWED_HOSTS`,
      });
      return;
    }
    // The card element: its SDK, iframe and the iframe's own endpoint (token, not signature).
    if (path.startsWith('/static/') || path === ELEMENT_METHODS_PATH) {
      const started = Date.now();
      const answered = handleElementRequest(this.context, request, response, path, rawBody, (answer) =>
        this.log(request, path, rawBody, started, { ...answer, data: null }, 'elementPaymentMethod'),
      );
      if (answered) return;
    }
    if (isApi) {
      const search = queryAt === -1 ? '' : target.slice(queryAt + 1);
      return this.handleApi(request, response, path, search, rawBody);
    }
    const url = new URL(target, 'http://sandbox.local');
    const page = /^\/pay\/(3ds|checkout|local)\/([^/]+)\/?$/.exec(url.pathname);
    if (page)
      return handlePage(this.context, request, response, page[1] ?? '', safeDecode(page[2] ?? ''), rawBody);
    if (
      (url.pathname === '/' || url.pathname === '/_sandbox' || url.pathname === '/_sandbox/') &&
      request.method === 'GET'
    ) {
      // Its buttons drive the control API: never inside another site's frame (clickjacking).
      response.setHeader('x-frame-options', 'DENY');
      response.setHeader('content-security-policy', "frame-ancestors 'none'");
      return sendHtml(response, 200, renderDashboard(this.context, this.baseUrl));
    }
    if (url.pathname.startsWith('/_sandbox/'))
      return handleControl(this.context, request, response, url, rawBody);
    // Anything else is a wrong gateway URL, answered the gateway's way.
    const reply = new GatewayReply(ERROR_CODES.URL, `no route ${redactText(url.pathname)}`).toEnvelope();
    this.log(request, url.pathname, rawBody, Date.now(), reply);
    sendJson(response, 200, reply);
  }

  private async handleApi(
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    search: string,
    rawBody: string,
  ) {
    const started = Date.now();
    const method = request.method ?? 'GET';
    const logPath = search ? `${path}?${search}` : path;
    const match = matchRoute(method, path.slice(API_PREFIX.length) || '/');
    if (match.kind !== 'operation') {
      const reply = new GatewayReply(
        ERROR_CODES.URL,
        match.kind === 'wrong-method'
          ? `use ${match.allowed.join(' or ')} for ${redactText(path)}`
          : `no route ${redactText(path)}`,
      ).toEnvelope();
      this.log(request, logPath, rawBody, started, reply);
      return sendJson(response, 200, reply);
    }
    const operation = match.operation;
    const fault = this.context.faults.take(operation.name);
    if (fault) {
      const record = (httpStatus?: number) =>
        this.log(request, logPath, rawBody, started, undefined, operation.name, fault.kind, httpStatus);
      if (await this.faultEffects.beforeOperation(fault, request, response, record)) return;
    }

    // Query values are signed decoded (docs/signing.md#requests), so they are read through URLSearchParams.
    const query: Record<string, string> = search ? Object.fromEntries(new URLSearchParams(search)) : {};
    let envelope: Envelope;
    let gatewayNo: string | undefined;
    try {
      const merchant = verifyRequest(
        {
          headers: request.headers,
          pathParams: match.pathParams,
          query,
          rawBody,
        },
        this.context.merchants,
        this.context.clock,
        this.context.requestIds,
      );
      gatewayNo = merchant.gatewayNo;
      const hidden = fault && this.faultEffects.hiddenRecords(fault, operation.name, match.pathParams);
      envelope = success(
        hidden ??
          runOperation(operation.name, this.context, {
            gatewayNo,
            pathParams: match.pathParams,
            query,
            rawBody,
          }),
      );
    } catch (error) {
      if (error instanceof GatewayReply) envelope = error.toEnvelope();
      else {
        console.error('[gatewaykit-sandbox] unexpected error in', operation.name, error);
        envelope = new GatewayReply(ERROR_CODES.GENERIC).toEnvelope();
      }
    }
    this.log(request, logPath, rawBody, started, envelope, operation.name, fault?.kind);

    const body = JSON.stringify(envelope);
    if (fault && this.faultEffects.afterAnswer(fault, request, response, body)) return;
    // Headers as a flat [name, value, …] list: node writes it as is, without walking an object.
    const headers = [
      'content-type',
      'application/json;charset=UTF-8',
      'content-length',
      String(Buffer.byteLength(body)),
    ];
    if (gatewayNo) headers.push('gateway-no', gatewayNo);
    headers.push(
      'response-id',
      header(request, 'request-id') ?? '',
      'response-time',
      String(this.context.clock.now()),
    );
    answerThisTurn(() => {
      response.writeHead(200, headers);
      response.end(body);
    });
  }

  private log(
    request: IncomingMessage,
    path: string,
    rawBody: string,
    started: number,
    envelope: Envelope | undefined,
    operation?: string,
    fault?: string,
    httpStatus?: number,
  ): void {
    this.context.store.logRequest({
      id: newShortId('req'),
      at: isoAt(this.context.clock.now()),
      method: request.method ?? 'GET',
      path: redactText(path),
      operation,
      gatewayNo: header(request, 'gateway-no'),
      requestId: header(request, 'request-id'),
      requestTime: header(request, 'request-time'),
      signInfo: header(request, 'sign-info'),
      contentType: header(request, 'content-type'),
      body: redactBody(rawBody),
      code: envelope?.code,
      message: envelope?.message,
      fault,
      httpStatus: httpStatus ?? (envelope ? 200 : undefined),
      durationMs: Date.now() - started,
    });
  }

  closeHanging(): void {
    this.faultEffects.releaseHanging();
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const merchants =
    options.merchants && options.merchants.length > 0 ? options.merchants : [DEFAULT_MERCHANT];
  const host = options.host ?? '127.0.0.1';
  const sandbox = new SandboxServer(merchants, options);
  const context = sandbox.context;
  const server = createServer((request, response) => {
    sandbox.handle(request, response).catch((error: unknown) => {
      console.error('[gatewaykit-sandbox] request failed', error);
      if (!response.headersSent) sendJson(response, 500, { error: 'sandbox error' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${formatHost(host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host)}:${port}`;
  sandbox.url = url;
  const first = merchants[0] ?? DEFAULT_MERCHANT;

  let closing: Promise<void> | undefined;
  return {
    url,
    apiUrl: `${url}${API_PREFIX}`,
    publicUrl: sandbox.publicUrl,
    merchants,
    gatewayNo: first.gatewayNo,
    signKey: first.signKey,
    clock: {
      now: () => context.clock.now(),
      get offsetMs() {
        return context.clock.offset;
      },
      setOffset: (offsetMs) => context.clock.setOffset(offsetMs),
      advance: (ms) => context.clock.advance(ms),
    },
    close() {
      closing ??= (async () => {
        sandbox.closeHanging();
        context.clock.cancelAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await context.callbacks.close();
        await closed;
      })();
      return closing;
    },
    reset: () => resetSandbox(context),
    state: () => stateDump(context),
    order(key) {
      const direct = context.store.orders.get(key);
      if (direct) return direct;
      return [...context.store.orders.values()].filter((order) => order.orderNo === key).at(-1);
    },
    requests: () => context.store.requests,
    addFault: (input) => context.faults.add(input),
    clearFaults: () => context.faults.clear(),
    faults: () => context.faults.list(),
    setClock: (input) => moveClock(context, input),
    callbacks: () => context.callbacks.list(),
    redeliver: (id) => context.callbacks.redeliver(id),
    setChaos: (chaos) => context.callbacks.setChaos(chaos),
    waitForCallbacks: (predicate, timeoutMs) => context.callbacks.waitFor(predicate, timeoutMs),
    refunds: (tradeNo) =>
      tradeNo === undefined ? [...context.store.refunds.values()] : context.store.refundsOf(tradeNo),
    refund: (batchNo) => context.store.refunds.get(batchNo),
    addRefundOutcome: (input) => addRefundOutcome(context, input),
    refundOutcomes: () => context.store.refundOutcomes,
    clearRefundOutcomes: () => {
      context.store.refundOutcomes = [];
    },
    settleRefund: (batchNo, input) => settleRefund(context, batchNo, input),
    raiseChargeback: (input) => raiseChargeback(context, input),
    chargebacks: (tradeNo) =>
      tradeNo === undefined ? [...context.store.chargebacks] : context.store.chargebacksOf(tradeNo),
  };
}
