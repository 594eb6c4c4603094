/**
 * In-memory state of the sandbox, kept for the life of the process (or until reset). Records hold
 * only what the gateway may keep about a card: brand, last4, mask and the decided test behaviour.
 */
import type { CardBehaviour } from './cards.js';

export interface Address {
  city: string;
  country: string;
  line1: string;
  line2?: string | undefined;
  postalCode?: string | undefined;
  state?: string | undefined;
}

export interface BillingDetail {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  address: Address;
}

export interface CustomerRecord {
  gatewayNo: string;
  customerId: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  description: string;
  created: string;
}

export interface PaymentMethodRecord {
  gatewayNo: string;
  customerPaymentMethodId: string;
  customerId: string | null;
  card: { brand: string; last4: string };
  maskCardNo: string;
  behaviour: CardBehaviour;
  billingDetail: BillingDetail;
  created: string;
}

/** A card element session token (docs/gateway-protocol.md#session-tokens): one merchant's, for 30 minutes. */
export interface SessionTokenRecord {
  sessionToken: string;
  gatewayNo: string;
  /** Virtual-clock ms after which the token is refused. */
  expiresAt: number;
}

export type OrderKind = 'charge' | 'checkout' | 'local';
export type OrderStatus = 'pending' | 'success' | 'fail';
/** Which hosted page a pending order waits on, if any. */
export type OrderPage = '3ds' | 'checkout' | 'local';

export interface OrderRecord {
  gatewayNo: string;
  tradeNo: string;
  orderNo: string;
  kind: OrderKind;
  orderAmount: string;
  orderCurrency: string;
  orderStatus: OrderStatus;
  orderInfo: string;
  maskCardNo: string;
  brand?: string | undefined;
  last4?: string | undefined;
  /** Test behaviour of the card that started a 3DS challenge, decided when the charge came in. */
  behaviour?: CardBehaviour | undefined;
  paymentMethod?: string | undefined;
  customerId?: string | undefined;
  customerPaymentMethodId?: string | undefined;
  remark: string;
  returnUrl: string;
  callbackUrl?: string | undefined;
  page?: OrderPage | undefined;
  redirectUrl?: string | undefined;
  /** Set once the browser was sent back to returnUrl. */
  returnedAt?: string | undefined;
  createdAt: string;
  updatedAt: string;
}

export type RefundStatus = 'pending' | 'success' | 'fail';

/**
 * One refund of a trade (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks): applied by
 * `POST /refund`, settled at once or later.
 */
export interface RefundRecord {
  gatewayNo: string;
  batchNo: string;
  /** The merchant's own refund id: a second request with it answers this refund again. */
  merTrackNo: string;
  tradeNo: string;
  orderNo: string;
  /** Normalised to the currency's digits (`5` is kept as `5.00`). */
  refundAmount: string;
  refundCurrency: string;
  refundType: '1' | '2';
  refundReason: string;
  remark: string;
  refundStatus: RefundStatus;
  /** Why a failed refund failed (the `reason` of its `refund.fail` notification); `''` otherwise. */
  failReason: string;
  /** When it was applied, `YYYY-MM-DD HH:mm:ss` (UTC, virtual clock). */
  refundDate: string;
  createdAt: string;
  updatedAt: string;
}

/** A chargeback raised on a trade through the control API. */
export interface ChargebackRecord {
  gatewayNo: string;
  batchNo: string;
  tradeNo: string;
  orderNo: string;
  amount: string;
  currency: string;
  reason: string;
  /** `YYYY-MM-DD HH:mm:ss` (UTC, virtual clock), like `noticeDate`. */
  replyDeadline: string;
  cpdDate: string;
  noticeDate: string;
  createdAt: string;
}

/** What the next refund(s) do instead of succeeding at once (`POST /_sandbox/refunds/next`). */
export interface RefundOutcomeRule {
  id: string;
  outcome: RefundStatus;
  /** The failure reason for `fail`. */
  reason: string;
  /** Only refunds of this trade, when set. */
  tradeNo?: string | undefined;
  remaining: number | 'always';
}

export interface RequestLogEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  operation?: string | undefined;
  gatewayNo?: string | undefined;
  requestId?: string | undefined;
  requestTime?: string | undefined;
  signInfo?: string | undefined;
  contentType?: string | undefined;
  /** The body text as received, with card numbers masked and security codes replaced. */
  body?: string | undefined;
  code?: string | undefined;
  message?: string | undefined;
  fault?: string | undefined;
  httpStatus?: number | undefined;
  durationMs: number;
}

/** Only the most recent entries are kept so a long-running CLI (or the 100k bench) stays small. */
const REQUEST_LOG_LIMIT = 2000;

export class SandboxStore {
  readonly customers = new Map<string, CustomerRecord>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  /** By token. */
  readonly sessionTokens = new Map<string, SessionTokenRecord>();
  /** By tradeNo. */
  readonly orders = new Map<string, OrderRecord>();
  /**
   * tradeNo of the successful order by merchant, then orderNo: the duplicate check must not scan all
   * orders. Nested rather than one joined key, so a lookup builds and hashes no new string.
   */
  private readonly paid = new Map<string, Map<string, string>>();
  /** By batchNo. */
  readonly refunds = new Map<string, RefundRecord>();
  /** Chargebacks in the order they were raised. */
  readonly chargebacks: ChargebackRecord[] = [];
  /** Test controls for the next refunds, first live rule first. */
  refundOutcomes: RefundOutcomeRule[] = [];
  /** Refunds of a trade in application order, by tradeNo. */
  private readonly refundsByTrade = new Map<string, RefundRecord[]>();
  /** Refund by merchant, then merTrackNo: a merTrackNo names one refund of one merchant. */
  private readonly refundsByTrackNo = new Map<string, Map<string, RefundRecord>>();
  private requestLog: RequestLogEntry[] = [];

  reset(): void {
    this.customers.clear();
    this.paymentMethods.clear();
    this.sessionTokens.clear();
    this.orders.clear();
    this.paid.clear();
    this.refunds.clear();
    this.refundsByTrade.clear();
    this.refundsByTrackNo.clear();
    this.chargebacks.length = 0;
    this.refundOutcomes = [];
    this.requestLog = [];
  }

  addRefund(refund: RefundRecord): void {
    this.refunds.set(refund.batchNo, refund);
    const ofTrade = this.refundsByTrade.get(refund.tradeNo);
    if (ofTrade) ofTrade.push(refund);
    else this.refundsByTrade.set(refund.tradeNo, [refund]);
    let byTrackNo = this.refundsByTrackNo.get(refund.gatewayNo);
    if (!byTrackNo) {
      byTrackNo = new Map();
      this.refundsByTrackNo.set(refund.gatewayNo, byTrackNo);
    }
    byTrackNo.set(refund.merTrackNo, refund);
  }

  refundsOf(tradeNo: string): readonly RefundRecord[] {
    return this.refundsByTrade.get(tradeNo) ?? [];
  }

  refundByTrackNo(gatewayNo: string, merTrackNo: string): RefundRecord | undefined {
    return this.refundsByTrackNo.get(gatewayNo)?.get(merTrackNo);
  }

  chargebacksOf(tradeNo: string): ChargebackRecord[] {
    return this.chargebacks.filter((chargeback) => chargeback.tradeNo === tradeNo);
  }

  logRequest(entry: RequestLogEntry): void {
    this.requestLog.push(entry);
    // Trimmed in batches so a busy sandbox does not shift the whole array on every request.
    if (this.requestLog.length > REQUEST_LOG_LIMIT + 500)
      this.requestLog = this.requestLog.slice(-REQUEST_LOG_LIMIT);
  }

  get requests(): readonly RequestLogEntry[] {
    return this.requestLog.length > REQUEST_LOG_LIMIT
      ? this.requestLog.slice(-REQUEST_LOG_LIMIT)
      : this.requestLog;
  }

  markPaid(order: OrderRecord): void {
    let byOrderNo = this.paid.get(order.gatewayNo);
    if (!byOrderNo) {
      byOrderNo = new Map();
      this.paid.set(order.gatewayNo, byOrderNo);
    }
    byOrderNo.set(order.orderNo, order.tradeNo);
  }

  paidOrder(gatewayNo: string, orderNo: string): OrderRecord | undefined {
    const tradeNo = this.paid.get(gatewayNo)?.get(orderNo);
    return tradeNo === undefined ? undefined : this.orders.get(tradeNo);
  }
}

/** The order fields every gateway answer about an order carries (operation results and callbacks). */
export function orderSummary(order: OrderRecord) {
  return {
    orderNo: order.orderNo,
    tradeNo: order.tradeNo,
    orderAmount: order.orderAmount,
    orderCurrency: order.orderCurrency,
    orderStatus: order.orderStatus,
    orderInfo: order.orderInfo,
    maskCardNo: order.maskCardNo,
    remark: order.remark,
  };
}
