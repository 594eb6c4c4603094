import { expect } from 'vitest';
import type { ClusterStack } from './cluster';
import { adminOrder, CARDS, cardInput, eventually, prepareOrder, startPayment } from './shop';

/** The order once a payment placed it (PaymentSettled), checked Settled exactly once. */
export async function settledOnce(stack: ClusterStack, orderId: string) {
  const order = await eventually(
    () => adminOrder(stack.admin, orderId),
    (o) => o.state === 'PaymentSettled',
    20_000,
  );
  expect(order.state).toBe('PaymentSettled');
  expect(order.payments.map((p) => p.state)).toEqual(['Settled']);
  return order;
}

/** An order paid by card through the proxy, Settled once: the order and its one payment. */
export async function paidByCard(stack: ClusterStack) {
  const shop = stack.shop();
  const order = await prepareOrder(shop);
  const card = await startPayment(shop, {
    paymentMethodCode: 'gatewaykit-card',
    card: cardInput(CARDS.success),
  });
  expect(card.__typename).toBe('GatewaykitPaymentCompleted');
  const [payment] = (await settledOnce(stack, order.id)).payments;
  if (!payment) throw new Error('no payment');
  return { order, payment };
}
