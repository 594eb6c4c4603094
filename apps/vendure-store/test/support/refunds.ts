import type { GraphqlClient } from '../../src/graphql-client';
import { adminOrder, CARDS, cardInput, eventually, prepareOrder, startPayment } from './shop';
import { type Stack, shopClient } from './stack';

export interface AdminRefund {
  id: string;
  state: string;
  total: number;
  reason: string | null;
  transactionId: string | null;
  metadata: Record<string, unknown> | null;
}

export type RefundOrderResult =
  | ({ __typename: 'Refund' } & AdminRefund)
  | { __typename: string; message: string; errorCode?: string };

/**
 * A guest order paid by card (synchronous charge) through `methodCode` (in `channelToken`'s channel);
 * returns its Settled payment.
 */
export async function paidCardOrder(
  stack: Stack,
  methodCode = 'gatewaykit-card',
  channelToken?: string,
  city?: string,
) {
  const shop = shopClient(stack, channelToken);
  const order = await prepareOrder(shop, city ? { city } : {});
  const paid = await startPayment(shop, { paymentMethodCode: methodCode, card: cardInput(CARDS.success) });
  if (paid.__typename !== 'GatewaykitPaymentCompleted') throw new Error(`card payment: ${paid.__typename}`);
  const admin = stack.admin.withChannel(channelToken);
  const payment = (await adminOrder(admin, order.id)).payments.find((p) => p.state === 'Settled');
  if (!payment?.transactionId) throw new Error('no settled payment');
  return { shop, order, payment: { ...payment, transactionId: payment.transactionId } };
}

const REFUND_FIELDS = 'id state total reason transactionId metadata';

/** The Admin API's `refundOrder` for `amount` (minor units) of one payment. */
export async function refundOrder(
  admin: GraphqlClient,
  paymentId: string,
  amount: number,
  reason = 'customer request',
): Promise<RefundOrderResult> {
  const { refundOrder: result } = await admin.query<{ refundOrder: RefundOrderResult }>(
    `mutation ($input: RefundOrderInput!) { refundOrder(input: $input) {
       __typename ... on Refund { ${REFUND_FIELDS} } ... on ErrorResult { errorCode message } } }`,
    { input: { paymentId, amount, reason, lines: [], shipping: 0, adjustment: 0 } },
  );
  return result;
}

export function asRefund(result: RefundOrderResult): AdminRefund {
  if (result.__typename !== 'Refund') throw new Error(`refundOrder: ${result.__typename}`);
  return result as AdminRefund;
}

/** The order's payments with their refunds, as the dashboard's order page loads them. */
export async function paymentsWithRefunds(admin: GraphqlClient, orderId: string) {
  const { order } = await admin.query<{
    order: {
      payments: {
        id: string;
        state: string;
        transactionId: string | null;
        metadata: Record<string, unknown>;
        refunds: AdminRefund[];
      }[];
    };
  }>(
    `query ($id: ID!) { order(id: $id) { payments { id state transactionId metadata refunds { ${REFUND_FIELDS} } } } }`,
    {
      id: orderId,
    },
  );
  return order.payments;
}

export async function refundById(admin: GraphqlClient, orderId: string, refundId: string) {
  const payments = await paymentsWithRefunds(admin, orderId);
  const refund = payments.flatMap((p) => p.refunds).find((r) => r.id === refundId);
  if (!refund) throw new Error(`refund ${refundId} not found`);
  return refund;
}

/** The order's history entries that moved refund `refundId`. */
export async function refundTransitions(admin: GraphqlClient, orderId: string, refundId: string) {
  const order = await adminOrder(admin, orderId);
  return order.history.items.filter(
    (entry) => entry.type === 'ORDER_REFUND_TRANSITION' && String(entry.data.refundId) === refundId,
  );
}

/** Vendure minor units (2 decimals in the demo's USD) as the gateway's amount. */
export function usd(minor: number): string {
  return (minor / 100).toFixed(2);
}

/**
 * A chargeback of `amount` raised on the trade with every notice kept by the sandbox (chaos `drop`,
 * lifted by the caller): the chargeback and its kept deliveries.
 */
export async function chargebackWithLostNotice(stack: Stack, tradeNo: string, amount: string) {
  stack.sandbox.setChaos({ drop: true });
  const chargeback = stack.sandbox.raiseChargeback({
    tradeNo,
    amount,
    reason: 'D4837-No Cardholder Authorization',
    replyDeadline: '2026-12-24',
  });
  const lost = await eventually(
    async () => stack.sandbox.callbacks().filter((c) => c.batchNo === chargeback.batchNo),
    (kept) => kept.length > 0,
  );
  return { chargeback, lost };
}
