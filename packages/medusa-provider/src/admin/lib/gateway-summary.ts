/** What the order widget shows about one gatewaykit payment; read from the payment's public data. */
export interface GatewaySummary {
  providerId: string;
  method: string;
  status: string;
  tradeNo?: string | undefined;
  maskedCard?: string | undefined;
  orderInfo?: string | undefined;
  /** Refunds made through the gateway, oldest first. */
  refunds: RefundSummary[];
  /** Chargebacks the gateway notified, oldest first. */
  chargebacks: ChargebackSummary[];
}

export interface RefundSummary {
  /** e.g. `5.00 USD` */
  amount: string;
  /** pending, succeeded, failed, or unknown (the answer was lost; its notification decides). */
  status: string;
  batchNo?: string | undefined;
  /** Why it failed. */
  reason?: string | undefined;
}

export interface ChargebackSummary {
  amount: string;
  reason?: string | undefined;
  /** Last day to answer it in the gateway's portal. */
  replyDeadline?: string | undefined;
  batchNo?: string | undefined;
}

type PaymentLike = { provider_id?: string; data?: Record<string, unknown> | null };
type SessionData = {
  mode?: string;
  localMethod?: string;
  error?: string;
  outcome?: { status?: string; tradeNo?: string; maskCardNo?: string; orderInfo?: string; reason?: string };
  refunds?: unknown;
  chargebacks?: unknown;
};

type Entry = Record<string, unknown>;

/** The entries of a list in the data; anything else (an older payment without one) is no entries. */
function entriesOf(value: unknown): Entry[] {
  return Array.isArray(value)
    ? value.filter((item): item is Entry => !!item && typeof item === 'object')
    : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function money(amount: unknown, currency: unknown): string {
  return [text(amount) ?? '?', text(currency)].filter(Boolean).join(' ');
}

const METHOD_LABEL: Record<string, string> = {
  card: 'Saved card',
  hosted: 'Hosted checkout',
  local: 'Local payment',
};

/** The gatewaykit payments of an order (payments first, else the last session of each collection). */
export function gatewaySummaries(order: {
  payment_collections?:
    | ({ payments?: PaymentLike[] | null; payment_sessions?: PaymentLike[] | null } | null)[]
    | null;
}): GatewaySummary[] {
  const summaries: GatewaySummary[] = [];
  for (const collection of order.payment_collections ?? []) {
    const payments = collection?.payments?.length
      ? collection.payments
      : (collection?.payment_sessions ?? []);
    for (const payment of payments) {
      if (!payment.provider_id?.startsWith('pp_gatewaykit')) continue;
      const data = (payment.data ?? {}) as SessionData;
      const outcome = data.outcome ?? {};
      const method = METHOD_LABEL[data.mode ?? ''] ?? 'Card gateway';
      summaries.push({
        providerId: payment.provider_id,
        method: data.localMethod ? `${method} (${data.localMethod})` : method,
        status: outcome.status ?? 'not started',
        tradeNo: outcome.tradeNo,
        maskedCard: outcome.maskCardNo,
        orderInfo: outcome.orderInfo ?? outcome.reason ?? data.error,
        refunds: entriesOf(data.refunds).map((refund) => ({
          amount: money(refund.amount, refund.currency),
          status: text(refund.status) ?? 'unknown',
          batchNo: text(refund.batchNo),
          reason: text(refund.reason),
        })),
        chargebacks: entriesOf(data.chargebacks).map((chargeback) => ({
          amount: money(chargeback.amount, chargeback.currency),
          reason: text(chargeback.reason),
          replyDeadline: text(chargeback.replyDeadline),
          batchNo: text(chargeback.batchNo),
        })),
      });
    }
  }
  return summaries;
}
