/**
 * Dashboard extension (compiled by the host app's Vite build, as Vendure dashboards are): a panel on
 * the order page listing the gateway payments with tradeNo, status, masked card and method, their
 * refunds (state, gateway batch, why one failed) and chargebacks (amount, reason, reply deadline). It
 * reads the Admin API payment and refund metadata the plugin writes; nothing secret is in there.
 */
import { defineDashboardExtension } from '@vendure/dashboard';

interface ChargebackView {
  batchNo?: string;
  amount?: string;
  currency?: string;
  reason?: string;
  replyDeadline?: string;
}

interface RefundView {
  id: string;
  state: string;
  total: number;
  transactionId?: string | null;
  metadata?: { gatewaykit?: string; batchNo?: string; merTrackNo?: string; message?: string } | null;
}

interface GatewayPaymentView {
  id: string;
  state: string;
  method: string;
  transactionId?: string | null;
  metadata?: {
    orderNo?: string;
    tradeNo?: string | null;
    status?: string;
    maskCardNo?: string | null;
    mode?: string;
    orderInfo?: string | null;
    chargebacks?: ChargebackView[];
  } | null;
  refunds?: RefundView[];
}

function gatewayPayments(entity: unknown): GatewayPaymentView[] {
  const payments = (entity as { payments?: GatewayPaymentView[] } | undefined)?.payments ?? [];
  return payments.filter(
    (p) => typeof p.metadata?.orderNo === 'string' && typeof p.metadata?.mode === 'string',
  );
}

/** Vendure keeps two decimals for every currency (MoneyStrategy precision 2). */
const major = (minor: number) => (minor / 100).toFixed(2);

function RefundLines({ refunds }: { refunds: RefundView[] }) {
  return (
    <ul className="text-xs">
      {refunds.map((r) => (
        <li key={r.id}>
          Refund {r.id}: {major(r.total)} · {r.state}
          {r.metadata?.gatewaykit === 'manual' ? ' (manual)' : ''}
          {r.transactionId || r.metadata?.batchNo ? ` · batch ${r.transactionId || r.metadata?.batchNo}` : ''}
          {r.state === 'Failed' && r.metadata?.message ? ` · ${r.metadata.message}` : ''}
        </li>
      ))}
    </ul>
  );
}

function ChargebackLines({ chargebacks }: { chargebacks: ChargebackView[] }) {
  return (
    <ul className="text-xs text-destructive">
      {chargebacks.map((c) => (
        <li key={c.batchNo ?? `${c.amount}-${c.replyDeadline}`}>
          Chargeback {c.batchNo ?? ''}: {c.amount} {c.currency} · {c.reason ?? 'no reason given'} · reply by{' '}
          {c.replyDeadline ?? '?'}
        </li>
      ))}
    </ul>
  );
}

function GatewayPaymentsBlock({ context }: { context: { entity?: unknown } }) {
  const payments = gatewayPayments(context.entity);
  return (
    <table className="w-full text-sm">
      <thead>
        <tr className="text-left text-muted-foreground">
          <th>Trade no.</th>
          <th>Status</th>
          <th>Card</th>
          <th>Method</th>
        </tr>
      </thead>
      <tbody>
        {payments.map((p) => (
          <tr key={p.id}>
            <td className="font-mono">{p.metadata?.tradeNo ?? p.transactionId ?? '—'}</td>
            <td title={p.metadata?.orderInfo ?? undefined}>
              {p.state} ({p.metadata?.status ?? '?'})
              {p.refunds?.length ? <RefundLines refunds={p.refunds} /> : null}
              {p.metadata?.chargebacks?.length ? (
                <ChargebackLines chargebacks={p.metadata.chargebacks} />
              ) : null}
            </td>
            <td className="font-mono">{p.metadata?.maskCardNo ?? '—'}</td>
            <td>
              {p.metadata?.mode} · {p.method}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default defineDashboardExtension({
  pageBlocks: [
    {
      id: 'gatewaykit-payments',
      title: 'Card gateway',
      location: {
        pageId: 'order-detail',
        column: 'main',
        position: { blockId: 'payment-details', order: 'after' },
      },
      component: GatewayPaymentsBlock,
      shouldRender: (context) => gatewayPayments(context.entity).length > 0,
    },
  ],
});
