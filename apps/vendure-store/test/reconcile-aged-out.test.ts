/**
 * An attempt the gateway's records never settle, past `reconcile.maxAgeMs`: the run stops asking about
 * it and hands it to a person once, on its order (real Vendure server and sandbox; the age is shortened
 * through GATEWAYKIT_RECONCILE_MAX_AGE_MS, so these tests have their own server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingChargeNobodyLists, reconcileItems } from './support/reconcile';
import { adminOrder } from './support/shop';
import { type Stack, startStack } from './support/stack';

const MAX_AGE_MS = 6000;

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
    const { order, orderNo } = await pendingChargeNobodyLists(stack);

    const asked = (await reconcileItems(stack.admin)).find((item) => item.reference === orderNo);
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
    const handed = (await reconcileItems(stack.admin)).filter((item) => item.reference === orderNo);
    expect(handed).toEqual([
      expect.objectContaining({
        before: 'pending',
        after: 'pending',
        reason: 'left to a person after 6 seconds: said on the order',
      }),
    ]);
    expect(await notesOf()).toHaveLength(1);
    const again = (await reconcileItems(stack.admin)).filter((item) => item.reference === orderNo);
    expect(again).toEqual([
      expect.objectContaining({ reason: 'left to a person (said on the order before)' }),
    ]);
    expect(await notesOf()).toHaveLength(1);
    // Still blocked for a person to settle: nothing was recorded or freed.
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');
  });
});
