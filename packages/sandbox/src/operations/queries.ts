/**
 * The gateway's record queries (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks):
 * `GET /transactions`, `GET /orderInfo/{tradeNo}` and `GET /chargebacks`. They answer from the
 * sandbox's own records, so a charge whose answer or callback was lost (commit-then-drop, chaos drop)
 * is found like any other.
 */

import { chargebackView } from '../chargebacks.js';
import { gatewayTimestamp, type SandboxContext } from '../context.js';
import { ERROR_CODES } from '../core.js';
import { GatewayReply, notFound } from '../replies.js';
import type { OrderRecord } from '../store.js';

/** Query of `GET /transactions` and `GET /chargebacks` once validated. */
export interface RecordQuery {
  /** `YYYY-MM-DDTHH:mm:ss`, UTC, inclusive. */
  startTime: string;
  /** `YYYY-MM-DDTHH:mm:ss`, UTC, inclusive (the whole second). */
  endTime: string;
  orderNo?: string | undefined;
  tradeNo?: string | undefined;
  /** From 1; default 1. */
  pageIndex?: number | undefined;
  /** 1–1000; default 10. */
  pageSize?: number | undefined;
}

const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 1000;

const QUERY_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

function parseQueryTime(value: string | undefined, field: string): number {
  if (!value) throw new GatewayReply(ERROR_CODES.PARAM_NULL, `${field} is required`);
  const parts = QUERY_TIME.exec(value);
  const ms = parts ? Date.parse(`${value}Z`) : Number.NaN;
  // Date.parse rolls 02-30 over to March: the text must come back unchanged.
  if (!parts || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== value)
    throw new GatewayReply(ERROR_CODES.PARAM, `${field}: must be a time YYYY-MM-DDTHH:mm:ss`);
  return ms;
}

/** `[from, to)` in ms of the virtual clock; endTime covers its whole second. */
function timeWindow(query: RecordQuery): { from: number; to: number } {
  const from = parseQueryTime(query.startTime, 'startTime');
  const end = parseQueryTime(query.endTime, 'endTime');
  if (end < from) throw new GatewayReply(ERROR_CODES.PARAM, 'endTime: must not be before startTime');
  return { from, to: end + 1000 };
}

function paging(query: RecordQuery): { pageIndex: number; pageSize: number } {
  const pageIndex = query.pageIndex ?? 1;
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageIndex) || pageIndex < 1)
    throw new GatewayReply(ERROR_CODES.PARAM, 'pageIndex: must be an integer from 1');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
    throw new GatewayReply(ERROR_CODES.PARAM, `pageSize: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  return { pageIndex, pageSize };
}

/** Matching records by time (oldest first, ties in recording order), one page of them. */
function pageOf<T>(
  records: readonly T[],
  query: RecordQuery,
  at: (record: T) => number,
  view: (record: T) => unknown,
) {
  const { from, to } = timeWindow(query);
  const { pageIndex, pageSize } = paging(query);
  const matching = records
    .map((record, index) => ({ record, index, time: at(record) }))
    .filter((entry) => entry.time >= from && entry.time < to)
    .sort((a, b) => a.time - b.time || a.index - b.index);
  const start = (pageIndex - 1) * pageSize;
  return {
    page: { total: matching.length, pageSize, pageIndex },
    list: matching.slice(start, start + pageSize).map((entry) => view(entry.record)),
  };
}

/** A trade as the record queries show it; `tradeDate` is when the payment was made (virtual clock). */
function transactionView(order: OrderRecord) {
  return {
    orderNo: order.orderNo,
    tradeNo: order.tradeNo,
    tradeDate: gatewayTimestamp(Date.parse(order.createdAt)),
    tradeStatus: order.orderStatus,
    tradeInfo: order.orderInfo,
    tradeAmount: order.orderAmount,
    tradeCurrency: order.orderCurrency,
  };
}

/** `GET /transactions`: the merchant's trades made within the window, filtered by orderNo/tradeNo. */
export function listTransactions(context: SandboxContext, gatewayNo: string, query: RecordQuery) {
  const orders = [...context.store.orders.values()].filter(
    (order) =>
      order.gatewayNo === gatewayNo &&
      (!query.orderNo || order.orderNo === query.orderNo) &&
      (!query.tradeNo || order.tradeNo === query.tradeNo),
  );
  return pageOf(orders, query, (order) => Date.parse(order.createdAt), transactionView);
}

/** `GET /orderInfo/{tradeNo}`: one trade of the merchant, or `P0002`. */
export function retrieveTransaction(context: SandboxContext, gatewayNo: string, tradeNo: string) {
  const order = context.store.orders.get(tradeNo);
  if (!order || order.gatewayNo !== gatewayNo) throw notFound('tradeNo', tradeNo);
  return transactionView(order);
}

/** `GET /chargebacks`: the merchant's chargebacks raised (noticeDate) within the window. */
export function listChargebacks(context: SandboxContext, gatewayNo: string, query: RecordQuery) {
  const chargebacks = context.store.chargebacks.filter(
    (chargeback) =>
      chargeback.gatewayNo === gatewayNo &&
      (!query.orderNo || chargeback.orderNo === query.orderNo) &&
      (!query.tradeNo || chargeback.tradeNo === query.tradeNo),
  );
  return pageOf(chargebacks, query, (chargeback) => Date.parse(chargeback.createdAt), chargebackView);
}
