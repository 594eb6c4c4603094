/**
 * Reconciliation (issue #14) against the real Vendure server and the sandbox: payments and refunds
 * whose answer and notification were lost are settled from the gateway's own records, through the
 * Admin API mutation and through the scheduled task, exactly as a callback would have settled them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type GraphqlClient, loginAdmin } from '../src/graphql-client';
import { paymentRequests, rawGraphql } from './support/attacker';
import { asRefund, paidCardOrder, refundById, refundOrder } from './support/refunds';
import { adminOrder, CARDS, cardInput, eventually, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const NO_RECORD_MS = 4000;

interface ReconcileResult {
  checked: number;
  changed: number;
  items: {
    kind: string;
    orderCode: string;
    reference: string;
    before: string;
    after: string;
    reason: string;
  }[];
}

const RECONCILE = `mutation { gatewaykitReconcile { checked changed items { kind orderCode reference before after reason } } }`;

async function reconcile(admin: GraphqlClient): Promise<ReconcileResult> {
  return (await admin.query<{ gatewaykitReconcile: ReconcileResult }>(RECONCILE)).gatewaykitReconcile;
}

describe('reconciliation of payments and refunds whose answer was lost', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      {},
      {
        GATEWAY_TIMEOUT_MS: '2000',
        // Everything without an answer is reconciled at once; no record 4 s after sending means none.
        GATEWAYKIT_RECONCILE_AFTER_MS: '0',
        GATEWAYKIT_RECONCILE_NO_RECORD_MS: String(NO_RECORD_MS),
        // Runs only when asked (mutation or the scheduler's trigger) while these tests watch.
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
      },
    );
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
    stack.sandbox.clearRefundOutcomes();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const pay = (shop: GraphqlClient) =>
    startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });

  /** A card charge the gateway made whose answer (commit-then-drop) and callback (chaos drop) were lost. */
  async function lostCharge() {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    stack.sandbox.setChaos({ drop: true });
    const started = await pay(shop);
    stack.sandbox.setChaos({});
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('success');
    const waiting = await adminOrder(stack.admin, order.id);
    expect(waiting.state).toBe('ArrangingPayment');
    expect(waiting.payments).toHaveLength(0);
    return { shop, order };
  }

  it('commit-then-drop on the charge and its callback dropped: the reconciliation finds the trade, the order completes exactly once', async () => {
    const { order } = await lostCharge();
    const run = await reconcile(stack.admin);
    expect(run.items.filter((i) => i.orderCode === order.code)).toEqual([
      {
        kind: 'attempt',
        orderCode: order.code,
        reference: `${order.code}-1`,
        before: 'unknown',
        after: 'succeeded',
        reason: expect.stringContaining('as success'),
      },
    ]);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => [p.state, p.transactionId])).toEqual([
      ['Settled', stack.sandbox.order(`${order.code}-1`)?.tradeNo],
    ]);
    expect(JSON.stringify(paid.history.items)).toContain(
      `Gateway reconciliation: payment attempt ${order.code}-1 unknown -> succeeded`,
    );
    // A second run has nothing left to do for it, and the late callback is a duplicate.
    expect((await reconcile(stack.admin)).items.filter((i) => i.orderCode === order.code)).toEqual([]);
    const dropped = stack.sandbox.callbacks().filter((c) => c.orderNo === `${order.code}-1`);
    expect(dropped.length).toBeGreaterThan(0);
    for (const delivery of dropped) await stack.sandbox.redeliver(delivery.id);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments).toHaveLength(1);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  it('a trade the gateway never recorded ends failed after the threshold and frees the order for a new payment', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    // The charge never reaches the gateway's books: the request hangs and the client gives up.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'hang' });
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    expect(stack.sandbox.order(`${order.code}-1`)).toBeUndefined();
    // Still within the threshold: the charge may be on its way, nothing changes.
    const early = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(early).toMatchObject({
      before: 'unknown',
      after: 'unknown',
      reason: expect.stringContaining('still pending'),
    });
    expect(await pay(shop)).toMatchObject({
      __typename: 'GatewaykitPaymentPending',
      orderNo: `${order.code}-1`,
    });

    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));
    const late = (await reconcile(stack.admin)).items.find((i) => i.reference === `${order.code}-1`);
    expect(late).toMatchObject({ before: 'unknown', after: 'failed' });
    const failed = await adminOrder(stack.admin, order.id);
    expect(failed.state).toBe('ArrangingPayment');
    expect(failed.payments.map((p) => [p.state, p.metadata.status])).toEqual([['Declined', 'failed']]);
    // The claim is free: a new attempt pays the order, once.
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
    expect(stack.sandbox.order(`${order.code}-2`)?.orderStatus).toBe('success');
  });

  it('attack: a pending charge the gateway gave a trade id but does not list is left open for a person, then settled once listed', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const orderNo = `${order.code}-1`;
    // The pending card succeeds a moment later by callback only, and its callbacks are lost.
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
    // The gateway's read side lags its writes: neither the list nor the trade by id shows it.
    stack.sandbox.addFault({ route: 'listTransactions', kind: 'unlisted', times: 'always' });
    stack.sandbox.addFault({ route: 'retrieveTransaction', kind: 'unlisted', times: 'always' });
    await new Promise((resolve) => setTimeout(resolve, NO_RECORD_MS));

    const held = (await reconcile(stack.admin)).items.find((i) => i.reference === orderNo);
    expect(held).toMatchObject({
      before: 'pending',
      after: 'pending',
      reason: expect.stringContaining('look it up in the merchant portal'),
    });
    expect(held?.reason).toContain(`as trade ${tradeNo}`);
    const open = await adminOrder(stack.admin, order.id);
    expect(open.state).toBe('ArrangingPayment');
    expect(open.payments).toEqual([]);
    // Not freed: the shopper's second try is the same open attempt, and nothing new is charged.
    expect(await pay(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo });
    expect(stack.sandbox.order(`${order.code}-2`)).toBeUndefined();

    stack.sandbox.clearFaults();
    const settled = (await reconcile(stack.admin)).items.find((i) => i.reference === orderNo);
    expect(settled).toMatchObject({ before: 'pending', after: 'succeeded' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => [p.state, p.transactionId])).toEqual([['Settled', tradeNo]]);
    expect((await reconcile(stack.admin)).items.filter((i) => i.reference === orderNo)).toEqual([]);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  it('a refund whose notice was lost is settled from the gateway record', async () => {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.setChaos({ drop: true });
    const refund = asRefund(await refundOrder(stack.admin, payment.id, 300));
    stack.sandbox.setChaos({});
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Pending');
    const run = await reconcile(stack.admin);
    expect(run.items.find((i) => i.kind === 'refund' && i.reference === refund.transactionId)).toMatchObject({
      orderCode: order.code,
      before: 'Pending',
      after: 'Settled',
    });
    expect((await refundById(stack.admin, order.id, refund.id)).state).toBe('Settled');
  });

  it("the reconciliation is the scheduled task gatewaykit-reconcile; the scheduler's own trigger runs it", async () => {
    const { scheduledTasks } = await stack.admin.query<{
      scheduledTasks: { id: string; enabled: boolean }[];
    }>(`{ scheduledTasks { id enabled } }`);
    expect(scheduledTasks).toContainEqual({ id: 'gatewaykit-reconcile', enabled: true });
    const { order } = await lostCharge();
    const { runScheduledTask } = await stack.admin.query<{ runScheduledTask: { success: boolean } }>(
      `mutation { runScheduledTask(id: "gatewaykit-reconcile") { success } }`,
    );
    expect(runScheduledTask.success).toBe(true);
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
  });

  it('attack: a shop client, or an administrator without the permission, cannot run the reconciliation', async () => {
    const { order } = await lostCharge();
    const shop = shopClient(stack);
    const fromShop = await rawGraphql(shop, RECONCILE, {});
    expect(fromShop.body.data ?? null).toBeNull();
    expect(fromShop.body.errors?.[0]?.message).toContain('Cannot query field "gatewaykitReconcile"');

    const limited = await limitedAdmin(stack.admin);
    const forbidden = await rawGraphql(limited, RECONCILE, {});
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');

    await reconcile(stack.admin);
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');
  });

  /** An administrator who may read and update orders, but not run the reconciliation. */
  async function limitedAdmin(admin: GraphqlClient): Promise<GraphqlClient> {
    const suffix = Math.random().toString(36).slice(2, 8);
    const { createRole } = await admin.query<{ createRole: { id: string } }>(
      `mutation ($input: CreateRoleInput!) { createRole(input: $input) { id } }`,
      {
        input: {
          code: `order-clerk-${suffix}`,
          description: 'orders only',
          permissions: ['ReadOrder', 'UpdateOrder'],
        },
      },
    );
    const email = `clerk-${suffix}@example.com`;
    await admin.query(
      `mutation ($input: CreateAdministratorInput!) { createAdministrator(input: $input) { id } }`,
      {
        input: {
          firstName: 'Order',
          lastName: 'Clerk',
          emailAddress: email,
          password: 'clerk-password',
          roleIds: [createRole.id],
        },
      },
    );
    return loginAdmin(stack.adminUrl, email, 'clerk-password');
  }
});
