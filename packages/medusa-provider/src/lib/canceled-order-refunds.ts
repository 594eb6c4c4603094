import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, MathBN } from '@medusajs/framework/utils';
import { failedRefundIds } from './gateway-records';
import { reportCanceledNotRefunded } from './merchant-alerts';
import { resolveGatewaykitAccounts } from './resolve-options';
import { type GatewaykitSessionData, readSessionData } from './session-data';

type Amount = { raw_amount?: unknown; amount?: unknown };
interface CanceledPayment {
  id: string;
  provider_id: string;
  currency_code?: string | null;
  data?: Record<string, unknown> | null;
  captures?: (Amount | null)[] | null;
  refunds?: ((Amount & { id: string }) | null)[] | null;
}
interface CanceledOrder {
  id: string;
  display_id?: number | null;
  payment_collections?: ({ payments?: (CanceledPayment | null)[] | null } | null)[] | null;
}

function total(rows: (Amount | null)[] | null | undefined) {
  return (rows ?? []).reduce(
    (sum, row) => MathBN.add(sum, MathBN.convert((row?.raw_amount ?? row?.amount ?? 0) as never)),
    MathBN.convert(0),
  );
}

/** What the payment data says about money the gateway gave back without a Medusa refund. */
function returnedOtherwise(data: Partial<GatewaykitSessionData>, manual: boolean): string {
  const notes: string[] = [];
  if (manual) notes.push("this store's refunds are manual (provider option refunds: 'manual')");
  if (data.chargebacks?.length) {
    notes.push(`it has chargebacks (${data.chargebacks.map((c) => c.batchNo).join(', ')})`);
  }
  if (data.refundedAtGateway?.length) {
    notes.push(`it was refunded in the merchant portal (batchNo ${data.refundedAtGateway.join(', ')})`);
  }
  return notes.length ? ` Known about it: ${notes.join('; ')}.` : '';
}

/**
 * Medusa's order cancel refunds each captured payment, but it only logs a refund that fails and records
 * the order as refunded all the same (docs/payment-states.md#a-canceled-order-whose-refund-was-refused).
 * Run on `order.canceled` (subscribers/order-canceled.ts).
 * The gatewaykit provider refuses a refund on purpose (manual refunds, a chargeback or a portal refund
 * that already returned the money, the gateway's refusal), so after a cancel every gatewaykit payment
 * whose captures are not covered by Medusa refund rows is made loud: money the shopper may not have had back.
 */
export async function reportCanceledOrderRefunds(scope: MedusaContainer, orderId: string): Promise<number> {
  const accounts = resolveGatewaykitAccounts(scope);
  const manualOf = new Map(
    accounts.flatMap((account) =>
      account.providerIds.map((id) => [id, (account.options.refunds ?? 'gateway') === 'manual'] as const),
    ),
  );
  const query = scope.resolve(ContainerRegistrationKeys.QUERY);
  const { data } = await query.graph({
    entity: 'order',
    fields: [
      'id',
      'display_id',
      'payment_collections.payments.id',
      'payment_collections.payments.provider_id',
      'payment_collections.payments.currency_code',
      'payment_collections.payments.data',
      'payment_collections.payments.captures.raw_amount',
      'payment_collections.payments.refunds.id',
      'payment_collections.payments.refunds.raw_amount',
    ],
    filters: { id: orderId },
  });
  const order = data[0] as CanceledOrder | undefined;
  let reported = 0;
  for (const collection of order?.payment_collections ?? []) {
    for (const payment of collection?.payments ?? []) {
      if (!payment || !manualOf.has(payment.provider_id)) continue;
      const session = readSessionData(payment.data ?? undefined);
      // A refund the gateway failed returned nothing, whatever Medusa's row says.
      const failed = failedRefundIds(session.refunds);
      const refunded = (payment.refunds ?? []).filter((row) => row && !failed.has(row.id));
      const missing = MathBN.sub(total(payment.captures), total(refunded));
      if (!MathBN.gt(missing, 0)) continue;
      await reportCanceledNotRefunded(
        scope,
        { orderNo: session.orderNo ?? payment.id, tradeNo: session.outcome?.tradeNo, paymentId: payment.id },
        {
          order: `Order ${order!.display_id ? `${order!.display_id} ` : ''}(${order!.id})`,
          amount: `${missing.toString()} ${(payment.currency_code ?? '').toUpperCase()}`,
          known: returnedOtherwise(session, manualOf.get(payment.provider_id)!),
        },
      );
      reported += 1;
    }
  }
  return reported;
}
