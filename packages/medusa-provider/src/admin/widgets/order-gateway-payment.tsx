import { defineWidgetConfig } from '@medusajs/admin-sdk';
import { Container, Heading, StatusBadge, Text } from '@medusajs/ui';
import { useEffect, useState } from 'react';
import { type GatewaySummary, gatewaySummaries } from '../lib/gateway-summary';

const BADGE: Record<string, 'green' | 'red' | 'orange' | 'grey'> = {
  succeeded: 'green',
  failed: 'red',
  pending: 'orange',
  redirect: 'orange',
  unknown: 'orange',
};

/** Order page card: gateway tradeNo, status, masked card, orderInfo and method of gatewaykit payments. */
function OrderGatewayPayment({ data }: { data: { id: string } }) {
  const [summaries, setSummaries] = useState<GatewaySummary[] | undefined>();
  useEffect(() => {
    const fields = '*payment_collections,*payment_collections.payments,*payment_collections.payment_sessions';
    fetch(`/admin/orders/${data.id}?fields=${encodeURIComponent(fields)}`, { credentials: 'include' })
      .then((response) => response.json())
      .then((body: { order?: Parameters<typeof gatewaySummaries>[0] }) =>
        setSummaries(gatewaySummaries(body.order ?? {})),
      )
      .catch(() => setSummaries([]));
  }, [data.id]);
  if (!summaries || summaries.length === 0) return null;
  return (
    <Container className="divide-y p-0">
      <div className="px-6 py-4">
        <Heading level="h2">Card gateway</Heading>
      </div>
      {summaries.map((summary) => (
        <div
          key={`${summary.providerId}-${summary.tradeNo ?? summary.status}`}
          className="grid gap-y-2 px-6 py-4"
        >
          <Row label="Method" value={summary.method} />
          <div className="flex items-center justify-between">
            <Text size="small" leading="compact" className="text-ui-fg-subtle">
              Status
            </Text>
            <StatusBadge color={BADGE[summary.status] ?? 'grey'}>{summary.status}</StatusBadge>
          </div>
          <Row label="Trade no." value={summary.tradeNo} />
          <Row label="Card" value={summary.maskedCard} />
          <Row label="Gateway message" value={summary.orderInfo} />
        </div>
      ))}
    </Container>
  );
}

function Row({ label, value }: { label: string; value: string | undefined }) {
  return (
    <div className="flex items-center justify-between gap-x-4">
      <Text size="small" leading="compact" className="text-ui-fg-subtle">
        {label}
      </Text>
      <Text size="small" leading="compact" className="text-right">
        {value ?? '–'}
      </Text>
    </div>
  );
}

export const config = defineWidgetConfig({ zone: 'order.details.side.after' });

export default OrderGatewayPayment;
