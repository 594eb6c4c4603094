/**
 * Control API under /_sandbox/: reset, state dump, request log, faults, clock, callback controls, refund
 * outcomes and chargebacks. JSON in and out; form posts (the dashboard's buttons) get a 303 back to the
 * dashboard instead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackChaos, CallbackDelivery } from './callbacks.js';
import { type ChargebackInput, raiseChargeback } from './chargebacks.js';
import type { SandboxContext } from './context.js';
import { fromAnotherSite } from './cross-site.js';
import { FaultError, type FaultInput, type FaultRule } from './faults.js';
import { parseBodyFields, redirect, sendJson } from './http.js';
import {
  addRefundOutcome,
  type RefundOutcomeInput,
  type SettleRefundInput,
  settleRefund,
} from './refunds.js';
import { ControlError } from './replies.js';
import type {
  ChargebackRecord,
  CustomerRecord,
  OrderRecord,
  PaymentMethodRecord,
  RefundOutcomeRule,
  RefundRecord,
  RequestLogEntry,
} from './store.js';

export interface SandboxState {
  clock: { now: string; nowMs: number; offsetMs: number };
  merchants: { gatewayNo: string }[];
  customers: CustomerRecord[];
  paymentMethods: PaymentMethodRecord[];
  orders: OrderRecord[];
  refunds: RefundRecord[];
  refundOutcomes: RefundOutcomeRule[];
  chargebacks: ChargebackRecord[];
  callbacks: CallbackDelivery[];
  faults: FaultRule[];
  chaos: CallbackChaos;
}

export function clockView(context: SandboxContext) {
  const nowMs = context.clock.now();
  return { now: new Date(nowMs).toISOString(), nowMs, offsetMs: context.clock.offset };
}

export function stateDump(context: SandboxContext): SandboxState {
  return {
    clock: clockView(context),
    merchants: [...context.merchants.keys()].map((gatewayNo) => ({ gatewayNo })),
    customers: [...context.store.customers.values()],
    paymentMethods: [...context.store.paymentMethods.values()],
    orders: [...context.store.orders.values()],
    refunds: [...context.store.refunds.values()],
    refundOutcomes: context.store.refundOutcomes.map((rule) => ({ ...rule })),
    chargebacks: [...context.store.chargebacks],
    callbacks: [...context.callbacks.list()],
    faults: [...context.faults.list()],
    chaos: context.callbacks.chaos,
  };
}

export function resetSandbox(context: SandboxContext): void {
  context.callbacks.reset();
  context.clock.reset();
  context.faults.clear();
  context.requestIds.clear();
  context.store.reset();
}

export interface ClockInput {
  offsetMs?: number;
  advanceMs?: number;
}

export function moveClock(context: SandboxContext, input: ClockInput): void {
  const offset = input.offsetMs === undefined ? undefined : Number(input.offsetMs);
  const advance = input.advanceMs === undefined ? undefined : Number(input.advanceMs);
  if (offset !== undefined && Number.isFinite(offset)) context.clock.setOffset(offset);
  else if (advance !== undefined && Number.isFinite(advance)) context.clock.advance(advance);
  else throw new FaultError('send { offsetMs } or { advanceMs } in milliseconds');
}

const CHAOS_TIMINGS = ['concurrent', 'before-return', 'after-return'];

/** Validates chaos settings from JSON or a dashboard form (where every value is a string). */
function parseChaos(input: Record<string, unknown>): CallbackChaos {
  const bool = (value: unknown) => value === true || value === 'true' || value === 'on' || value === '1';
  const num = (value: unknown) => (value === undefined || value === '' ? undefined : Number(value));
  const chaos: CallbackChaos = {};
  const copies = num(input['copies']);
  if (copies !== undefined) {
    if (!Number.isInteger(copies) || copies < 1 || copies > 50) throw new FaultError('copies must be 1–50');
    chaos.copies = copies;
  }
  const delayMs = num(input['delayMs']);
  if (delayMs !== undefined) {
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new FaultError('delayMs must be ≥ 0');
    chaos.delayMs = delayMs;
  }
  if (bool(input['outOfOrder'])) chaos.outOfOrder = true;
  if (bool(input['drop'])) chaos.drop = true;
  const timing = input['timing'];
  if (timing !== undefined && timing !== '') {
    if (typeof timing !== 'string' || !CHAOS_TIMINGS.includes(timing)) {
      throw new FaultError(`timing must be one of ${CHAOS_TIMINGS.join(', ')}`);
    }
    chaos.timing = timing as CallbackChaos['timing'];
  }
  const noReturn = input['noReturn'];
  if (noReturn === 'abandon' || noReturn === 'always') chaos.noReturn = noReturn;
  else if (noReturn === true || noReturn === 'true') chaos.noReturn = 'abandon';
  else if (noReturn !== undefined && noReturn !== false && noReturn !== '' && noReturn !== 'false') {
    throw new FaultError('noReturn must be false, "abandon" or "always"');
  }
  return chaos;
}

function parseFault(input: Record<string, unknown>): FaultInput {
  const times = input['times'];
  const parsedTimes =
    times === undefined || times === ''
      ? undefined
      : times === 'always'
        ? 'always'
        : Number(times as string | number);
  const ms = input['ms'] === undefined || input['ms'] === '' ? undefined : Number(input['ms']);
  const status =
    input['status'] === undefined || input['status'] === '' ? undefined : Number(input['status']);
  return {
    route: String(input['route'] ?? ''),
    kind: input['kind'] as FaultInput['kind'],
    times: parsedTimes,
    ms,
    status,
  };
}

const optionalText = (value: unknown): string | undefined =>
  value === undefined || value === null || value === '' ? undefined : String(value);

/** `{ outcome, reason?, times?, tradeNo? }` from JSON or a dashboard form. */
function parseRefundOutcome(input: Record<string, unknown>): RefundOutcomeInput {
  const times = input['times'];
  return {
    outcome: String(input['outcome'] ?? '') as RefundOutcomeInput['outcome'],
    reason: optionalText(input['reason']),
    times:
      times === undefined || times === ''
        ? undefined
        : times === 'always'
          ? 'always'
          : Number(times as string),
    tradeNo: optionalText(input['tradeNo']),
  };
}

function parseSettleRefund(input: Record<string, unknown>): SettleRefundInput {
  return {
    status: String(input['status'] ?? '') as SettleRefundInput['status'],
    reason: optionalText(input['reason']),
  };
}

function parseChargeback(input: Record<string, unknown>): ChargebackInput {
  return {
    tradeNo: String(input['tradeNo'] ?? ''),
    amount: optionalText(input['amount']),
    reason: optionalText(input['reason']),
    replyDeadline: optionalText(input['replyDeadline']),
    cpdDate: optionalText(input['cpdDate']),
  };
}

/** Records of one trade when `?tradeNo=` is given, else all. */
function byTrade<T extends { tradeNo: string }>(records: Iterable<T>, url: URL): T[] {
  const tradeNo = url.searchParams.get('tradeNo');
  const all = [...records];
  return tradeNo ? all.filter((record) => record.tradeNo === tradeNo) : all;
}

function requestLog(context: SandboxContext, url: URL): RequestLogEntry[] {
  const limit = Number(url.searchParams.get('limit') ?? '0');
  const all = [...context.store.requests];
  return limit > 0 ? all.slice(-limit) : all;
}

export async function handleControl(
  context: SandboxContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  rawBody: string,
): Promise<void> {
  const crossSite = fromAnotherSite(request);
  if (crossSite) {
    sendJson(response, 403, {
      error: `the control API answers its own dashboard and local tools only (${crossSite})`,
    });
    return;
  }
  const path = url.pathname.replace(/\/+$/, '');
  const method = request.method ?? 'GET';
  const fromForm = String(request.headers['content-type'] ?? '').includes(
    'application/x-www-form-urlencoded',
  );
  const done = (value: unknown, status = 200) => {
    if (fromForm) redirect(response, '/_sandbox/');
    else sendJson(response, status, value);
  };
  try {
    const body = method === 'GET' ? {} : parseBodyFields(request, rawBody);
    const redeliver = /^\/_sandbox\/callbacks\/([^/]+)\/redeliver$/.exec(path);
    const faultById = /^\/_sandbox\/faults\/([^/]+)$/.exec(path);
    const settle = /^\/_sandbox\/refunds\/([^/]+)\/settle$/.exec(path);
    if (method === 'POST' && path === '/_sandbox/reset') {
      resetSandbox(context);
      return done({ ok: true });
    }
    if (method === 'GET' && path === '/_sandbox/state') return sendJson(response, 200, stateDump(context));
    if (method === 'GET' && path === '/_sandbox/requests')
      return sendJson(response, 200, requestLog(context, url));
    if (method === 'GET' && path === '/_sandbox/faults')
      return sendJson(response, 200, context.faults.list());
    if (method === 'POST' && path === '/_sandbox/faults')
      return done(context.faults.add(parseFault(body)), 201);
    if (method === 'DELETE' && path === '/_sandbox/faults') {
      context.faults.clear();
      return done({ ok: true });
    }
    if (faultById && (method === 'DELETE' || (method === 'POST' && body['_method'] === 'DELETE'))) {
      const removed = context.faults.remove(decodeURIComponent(faultById[1] ?? ''));
      return done({ ok: removed }, removed ? 200 : 404);
    }
    if (method === 'POST' && path === '/_sandbox/faults/clear') {
      context.faults.clear();
      return done({ ok: true });
    }
    if (method === 'GET' && path === '/_sandbox/clock') return sendJson(response, 200, clockView(context));
    if (method === 'POST' && path === '/_sandbox/clock') {
      moveClock(context, body as ClockInput);
      return done(clockView(context));
    }
    if (method === 'GET' && path === '/_sandbox/callbacks')
      return sendJson(response, 200, context.callbacks.list());
    if (method === 'POST' && redeliver) {
      const delivery = await context.callbacks.redeliver(decodeURIComponent(redeliver[1] ?? ''));
      if (!delivery) return sendJson(response, 404, { error: 'unknown callback delivery' });
      return done(delivery);
    }
    if (method === 'GET' && path === '/_sandbox/chaos')
      return sendJson(response, 200, context.callbacks.chaos);
    if (method === 'POST' && path === '/_sandbox/chaos')
      return done(context.callbacks.setChaos(parseChaos(body)));
    if (method === 'DELETE' && path === '/_sandbox/chaos') return done(context.callbacks.setChaos({}));
    if (method === 'GET' && path === '/_sandbox/refunds')
      return sendJson(response, 200, byTrade(context.store.refunds.values(), url));
    if (method === 'GET' && path === '/_sandbox/refunds/next')
      return sendJson(response, 200, context.store.refundOutcomes);
    if (method === 'POST' && path === '/_sandbox/refunds/next')
      return done(addRefundOutcome(context, parseRefundOutcome(body)), 201);
    if (
      (method === 'DELETE' && path === '/_sandbox/refunds/next') ||
      (method === 'POST' && path === '/_sandbox/refunds/next/clear')
    ) {
      context.store.refundOutcomes = [];
      return done({ ok: true });
    }
    if (method === 'POST' && settle)
      return done(settleRefund(context, decodeURIComponent(settle[1] ?? ''), parseSettleRefund(body)));
    if (method === 'GET' && path === '/_sandbox/chargebacks')
      return sendJson(response, 200, byTrade(context.store.chargebacks, url));
    if (method === 'POST' && path === '/_sandbox/chargebacks')
      return done(raiseChargeback(context, parseChargeback(body)), 201);
    sendJson(response, 404, { error: `no control route ${method} ${path}` });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    sendJson(response, error instanceof ControlError ? error.status : 400, { error: message });
  }
}
