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
  /** By tradeNo. */
  readonly orders = new Map<string, OrderRecord>();
  /**
   * tradeNo of the successful order by merchant, then orderNo: the duplicate check must not scan all
   * orders. Nested rather than one joined key, so a lookup builds and hashes no new string.
   */
  private readonly paid = new Map<string, Map<string, string>>();
  private requestLog: RequestLogEntry[] = [];

  reset(): void {
    this.customers.clear();
    this.paymentMethods.clear();
    this.orders.clear();
    this.paid.clear();
    this.requestLog = [];
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
