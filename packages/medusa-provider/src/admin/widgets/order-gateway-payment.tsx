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

/**
 * Order page card: gateway tradeNo, status, masked card, orderInfo and method of gatewaykit payments,
 * their gateway refunds (a failed one needs the merchant: the order still shows it refunded) and
 * chargebacks (answered in the gateway's portal by the reply deadline).
 */
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
          {summary.refunds.map((refund, index) => (
            <div key={`refund-${refund.batchNo ?? index}`} className="grid gap-y-1">
              <div className="flex items-center justify-between">
                <Text size="small" leading="compact" className="text-ui-fg-subtle">
                  Refund {refund.amount}
                </Text>
                <StatusBadge color={BADGE[refund.status] ?? 'grey'}>{refund.status}</StatusBadge>
              </div>
              {refund.status === 'failed' ? (
                <Text size="small" leading="compact" className="text-ui-fg-error">
                  Failed at the gateway{refund.reason ? `: ${refund.reason}` : ''}. The order still shows it
                  refunded: settle it with the customer.
                </Text>
              ) : null}
              {refund.status === 'unknown' ? (
                <Text size="small" leading="compact" className="text-ui-fg-subtle">
                  The gateway's answer was lost; its notification decides. Do not refund it again.
                </Text>
              ) : null}
            </div>
          ))}
          {summary.chargebacks.map((chargeback, index) => (
            <div key={`chargeback-${chargeback.batchNo ?? index}`} className="grid gap-y-1">
              <div className="flex items-center justify-between">
                <Text size="small" leading="compact" className="text-ui-fg-subtle">
                  Chargeback {chargeback.amount}
                </Text>
                <StatusBadge color="red">chargeback</StatusBadge>
              </div>
              <Row label="Reason" value={chargeback.reason} />
              <Row label="Reply by" value={chargeback.replyDeadline} />
            </div>
          ))}
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
