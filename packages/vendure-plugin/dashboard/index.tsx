/**
 * Dashboard extension (compiled by the host app's Vite build, as Vendure dashboards are): a panel on
 * the order page listing the gateway payments with tradeNo, status, masked card and method. It reads
 * the Admin API payment metadata the plugin writes; nothing secret is in there.
 */
import { defineDashboardExtension } from '@vendure/dashboard';

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
  } | null;
}

function gatewayPayments(entity: unknown): GatewayPaymentView[] {
  const payments = (entity as { payments?: GatewayPaymentView[] } | undefined)?.payments ?? [];
  return payments.filter(
    (p) => typeof p.metadata?.orderNo === 'string' && typeof p.metadata?.mode === 'string',
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
