/** What the order widget shows about one gatewaykit payment; read from the payment's public data. */
export interface GatewaySummary {
  providerId: string;
  method: string;
  status: string;
  tradeNo?: string | undefined;
  maskedCard?: string | undefined;
  orderInfo?: string | undefined;
}

type PaymentLike = { provider_id?: string; data?: Record<string, unknown> | null };
type SessionData = {
  mode?: string;
  localMethod?: string;
  error?: string;
  outcome?: { status?: string; tradeNo?: string; maskCardNo?: string; orderInfo?: string; reason?: string };
};

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
      });
    }
  }
  return summaries;
}
