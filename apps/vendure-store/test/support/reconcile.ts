import { expect } from 'vitest';
import type { GraphqlClient } from '../../src/graphql-client';
import { CARDS, cardInput, eventually, prepareOrder, startPayment } from './shop';
import { type Stack, shopClient } from './stack';

/** One line of the reconciliation's report (the Admin API mutation `gatewaykitReconcile`). */
export interface ReconcileItem {
  kind: string;
  orderCode: string;
  reference: string;
  before: string;
  after: string;
  reason: string;
}

/** Runs the reconciliation now, as an administrator; its report's lines. */
export async function reconcileItems(admin: GraphqlClient): Promise<ReconcileItem[]> {
  const { gatewaykitReconcile } = await admin.query<{ gatewaykitReconcile: { items: ReconcileItem[] } }>(
    'mutation { gatewaykitReconcile { items { kind orderCode reference before after reason } } }',
  );
  return gatewaykitReconcile.items;
}

/**
 * A card charge the gateway answered pending (with a trade id) and took a moment later, whose callbacks
 * are lost and which the gateway's read side does not list: neither the list nor the trade by id shows
 * it (the sandbox keeps these faults until cleared).
 */
export async function pendingChargeNobodyLists(stack: Stack) {
  const shop = shopClient(stack);
  const order = await prepareOrder(shop);
  const orderNo = `${order.code}-1`;
  stack.sandbox.setChaos({ drop: true });
  const started = await startPayment(shop, {
    paymentMethodCode: 'gatewaykit-card',
    card: cardInput(CARDS.pendingThenSuccess),
  });
  expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo });
  const tradeNo = stack.sandbox.order(orderNo)?.tradeNo;
  expect(tradeNo).toEqual(expect.any(String));
  const charged = await eventually(
    async () => stack.sandbox.order(orderNo)?.orderStatus,
    (status) => status === 'success',
  );
  expect(charged).toBe('success');
  stack.sandbox.addFault({ route: 'listTransactions', kind: 'unlisted', times: 'always' });
  stack.sandbox.addFault({ route: 'retrieveTransaction', kind: 'unlisted', times: 'always' });
  return { shop, order, orderNo, tradeNo: tradeNo as string };
}
