/**
 * An attempt the gateway's records never settle, past `reconcile.maxAgeMs`: the run stops asking about
 * it and hands it to a person once, on its order (real Vendure server and sandbox; the age is shortened
 * through GATEWAYKIT_RECONCILE_MAX_AGE_MS, so these tests have their own server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { adminOrder, CARDS, cardInput, eventually, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const MAX_AGE_MS = 6000;

interface ReconcileItem {
  reference: string;
  before: string;
  after: string;
  reason: string;
}

async function reconcile(admin: GraphqlClient): Promise<ReconcileItem[]> {
  const { gatewaykitReconcile } = await admin.query<{ gatewaykitReconcile: { items: ReconcileItem[] } }>(
    'mutation { gatewaykitReconcile { items { reference before after reason } } }',
  );
  return gatewaykitReconcile.items;
}

describe('an attempt the reconciliation stops asking about', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      {},
      {
        GATEWAY_TIMEOUT_MS: '2000',
        GATEWAYKIT_RECONCILE_AFTER_MS: '0',
        GATEWAYKIT_RECONCILE_NO_RECORD_MS: '2000',
        GATEWAYKIT_RECONCILE_MAX_AGE_MS: String(MAX_AGE_MS),
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
      },
    );
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('attack: a pending charge the gateway never lists is handed to a person once it passes maxAgeMs: one order note, not dropped silently (found by review)', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const orderNo = `${order.code}-1`;
    // Pending at the gateway, paid a moment later, with every callback lost and the records lagging.
    stack.sandbox.setChaos({ drop: true });
    const started = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.pendingThenSuccess),
    });
    expect(started).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo });
    await eventually(
      async () => stack.sandbox.order(orderNo)?.orderStatus,
      (status) => status === 'success',
    );
    stack.sandbox.addFault({ route: 'listTransactions', kind: 'unlisted', times: 'always' });
    stack.sandbox.addFault({ route: 'retrieveTransaction', kind: 'unlisted', times: 'always' });

    const asked = (await reconcile(stack.admin)).find((item) => item.reference === orderNo);
    expect(asked).toMatchObject({ before: 'pending', after: 'pending' });
    await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 500));

    const notesOf = async () =>
      (await adminOrder(stack.admin, order.id)).history.items.filter(
        (entry) =>
          entry.type === 'ORDER_NOTE' &&
          String(entry.data.note).startsWith(
            `Gateway reconciliation stopped asking about payment attempt ${orderNo}`,
          ),
      );
    const handed = (await reconcile(stack.admin)).filter((item) => item.reference === orderNo);
    expect(handed).toEqual([
      expect.objectContaining({
        before: 'pending',
        after: 'pending',
        reason: 'left to a person after 6 seconds: said on the order',
      }),
    ]);
    expect(await notesOf()).toHaveLength(1);
    const again = (await reconcile(stack.admin)).filter((item) => item.reference === orderNo);
    expect(again).toEqual([
      expect.objectContaining({ reason: 'left to a person (said on the order before)' }),
    ]);
    expect(await notesOf()).toHaveLength(1);
    // Still blocked for a person to settle: nothing was recorded or freed.
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');
  });
});
