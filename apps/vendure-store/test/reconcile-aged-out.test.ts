/**
 * The reconciliation's own settings, on their own server (real Vendure server and sandbox):
 * - an attempt the gateway's records never settle, past `reconcile.maxAgeMs`: the run stops asking about
 *   it and hands it to a person once, on its order (the age shortened through GATEWAYKIT_RECONCILE_MAX_AGE_MS);
 * - `reconcile.chargebackLookbackDays: 0` (GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS): the run asks the gateway
 *   for no chargebacks, for a merchant account without access to the list;
 * - `reconcile.notMadeCloseAfterMs: 0`: a refund whose record was lost may be closed as not made at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildConfig, settingsFromEnv } from '../src/config';
import { pendingChargeNobodyLists, reconcileItems } from './support/reconcile';
import {
  asRefund,
  chargebackWithLostNotice,
  paidCardOrder,
  paymentsWithRefunds,
  refundOrder,
  usd,
} from './support/refunds';
import { adminOrder, orderNotes } from './support/shop';
import { type Stack, startStack } from './support/stack';
import { TEST_DATABASE } from './support/test-database';

const MAX_AGE_MS = 6000;
/** Refunds given this reason are rolled back once created, after the gateway was asked (the demo's failing-refund-process.ts). */
const ROLLBACK_REASON = 'test: roll back after the gateway made it';

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
        GATEWAYKIT_RECONCILE_NOT_MADE_CLOSE_MS: '0',
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
        GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS: '0',
        GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON: ROLLBACK_REASON,
      },
    );
  });
  afterAll(async () => {
    await stack?.close();
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
  });

  /**
   * A paid order whose 5.00 USD refund the gateway made while the admin request that sent it rolled back
   * (its notices held; `answerLost`: the gateway's answer to it lost too).
   */
  async function refundWithLostRecord(options: { answerLost?: boolean } = {}) {
    const { order, payment } = await paidCardOrder(stack);
    stack.sandbox.setChaos({ drop: true });
    if (options.answerLost) stack.sandbox.addFault({ route: 'createRefund', kind: 'commit-then-drop' });
    await expect(refundOrder(stack.admin, payment.id, 500, ROLLBACK_REASON)).rejects.toThrow(
      /test refund process/,
    );
    const [made, ...more] = stack.sandbox.refunds(payment.transactionId);
    expect(more).toEqual([]);
    return { order, payment, made };
  }

  it('attack: a pending charge the gateway never lists is handed to a person once it passes maxAgeMs: one order note, not dropped silently (found by review)', async () => {
    const { order, orderNo } = await pendingChargeNobodyLists(stack);

    const asked = (await reconcileItems(stack.admin)).find((item) => item.reference === orderNo);
    expect(asked).toMatchObject({ before: 'pending', after: 'pending' });
    await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 500));

    const notesOf = () =>
      orderNotes(
        stack.admin,
        order.id,
        `Gateway reconciliation stopped asking about payment attempt ${orderNo}`,
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

  it('with chargebackLookbackDays 0 the run asks the gateway for no chargebacks: one whose notice was lost is kept when its notice comes', async () => {
    const { order, payment } = await paidCardOrder(stack);
    const { chargeback, lost } = await chargebackWithLostNotice(stack, payment.transactionId, usd(500));
    const chargebacksOf = async () =>
      (await paymentsWithRefunds(stack.admin, order.id))[0]?.metadata.chargebacks;

    const items = await reconcileItems(stack.admin);
    expect(items.filter((item) => item.kind === 'chargeback')).toEqual([]);
    // The default asks (refunds.test.ts checks the same path is asked there).
    expect(stack.sandbox.requests().filter((r) => r.path.includes('/chargebacks'))).toEqual([]);
    expect(await chargebacksOf()).toBeUndefined();

    stack.sandbox.setChaos({});
    for (const delivery of lost) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    expect(await chargebacksOf()).toEqual([expect.objectContaining({ batchNo: chargeback.batchNo })]);
  });

  it('a refund whose record was lost, closed as not made once it cannot still be under way (notMadeCloseAfterMs): the payment refunds through Vendure again, under a new id', async () => {
    const { payment, made } = await refundWithLostRecord();
    const { gatewaykitCloseRefundIntent: closed } = await stack.admin.query<{
      gatewaykitCloseRefundIntent: { closed: boolean; reason: string };
    }>(
      `mutation ($merTrackNo: String!) {
          gatewaykitCloseRefundIntent(merTrackNo: $merTrackNo, made: false, note: "portal shows none") { closed reason } }`,
      { merTrackNo: made?.merTrackNo },
    );
    if (TEST_DATABASE === 'sqljs') {
      // One connection: the intent rolled back with the request, there is nothing to close.
      expect(closed).toEqual({ closed: false, reason: `no refund ${made?.merTrackNo} in this channel` });
      return;
    }
    expect(closed).toEqual({
      closed: true,
      reason: `refund ${made?.merTrackNo} closed as not made: the payment refunds through Vendure again`,
    });
    const next = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(next.state).toBe('Settled');
    expect(next.metadata?.merTrackNo).toMatch(/-R2$/);
    expect(made?.merTrackNo).toMatch(/-R1$/);
    // The saved Refund marked its intent in the same transaction: the run never reads it back.
    const intents = (await stack.databaseText())
      .split('\n')
      .filter((line) => line.startsWith('{"table":"gatewaykit_refund_intent"'))
      .map((line) => JSON.parse(line).row as { merTrackNo: string; answer: string | null });
    expect(intents.find((row) => row.merTrackNo === next.metadata?.merTrackNo)?.answer).toBe('recorded');
    expect(intents.find((row) => row.merTrackNo === made?.merTrackNo)?.answer).toBe('closed');
  });

  it('a refund whose record was lost and whose notice never came is read back by the run from its batchNo: made, it is kept on the payment and later refunds go to the portal', async () => {
    const { order, payment, made } = await refundWithLostRecord();
    const mine = async () =>
      (await reconcileItems(stack.admin)).filter((item) => item.reference === made?.batchNo);
    if (TEST_DATABASE === 'sqljs') {
      // One connection: the intent rolled back with the request, the run has nothing to read back.
      expect(await mine()).toEqual([]);
      return;
    }
    expect(await mine()).toEqual([
      expect.objectContaining({
        kind: 'refund',
        orderCode: order.code,
        before: 'record lost',
        after: 'succeeded',
      }),
    ]);
    const noted = await orderNotes(stack.admin, order.id, 'sent from here but never recorded');
    expect(noted).toHaveLength(1);
    const next = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(next.state).toBe('Failed');
    expect(next.metadata?.message).toContain('refunded outside the store');
    // Answered: the next run leaves it, and its notice delivered late notes nothing more.
    expect(await mine()).toEqual([]);
    stack.sandbox.setChaos({});
    for (const delivery of stack.sandbox.callbacks().filter((c) => c.batchNo === made?.batchNo)) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    const notedAgain = await orderNotes(stack.admin, order.id, 'sent from here but never recorded');
    expect(notedAgain).toHaveLength(1);
  });

  it('attack: a refund whose record was lost and whose answer was lost too cannot be read back: the run says so once on its order, the payment refunds no more, and its late notice ends it (found by review)', async () => {
    const { order, payment, made } = await refundWithLostRecord({ answerLost: true });
    const merTrackNo = String(made?.merTrackNo);
    const mine = async () =>
      (await reconcileItems(stack.admin)).filter((item) => item.reference === merTrackNo);
    const handedOver = () =>
      orderNotes(stack.admin, order.id, `refund ${merTrackNo} (5.00 USD) was sent to the gateway`);
    if (TEST_DATABASE === 'sqljs') {
      // One connection: the intent rolled back with the request; nothing is left to hand over.
      expect(await mine()).toEqual([]);
      expect(await handedOver()).toEqual([]);
      return;
    }
    expect(await mine()).toEqual([
      expect.objectContaining({
        kind: 'refund',
        orderCode: order.code,
        before: 'record lost',
        after: 'record lost',
        reason: 'left to a person: said on the order',
      }),
    ]);
    const [note, ...again] = await handedOver();
    expect(again).toEqual([]);
    expect(note).toContain(
      "the gateway's answer was lost too, so there is no refund number to read it back by",
    );
    expect(note).toContain(`Look it up by merTrackNo ${merTrackNo} in the merchant portal`);
    expect(note).toContain('gatewaykitCloseRefundIntent');
    // The next run finds its note: said once, never again.
    expect(await mine()).toEqual([
      expect.objectContaining({ reason: 'left to a person (said on the order before)' }),
    ]);
    expect(await handedOver()).toHaveLength(1);
    // Nothing read it back: no refund query was sent (there is no batchNo), and no refund went again.
    expect(
      stack.sandbox
        .requests()
        .filter((r) => r.operation === 'retrieveRefund' && r.path.includes(String(made?.batchNo))),
    ).toEqual([]);
    const retry = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(retry.state).toBe('Failed');
    expect(retry.metadata?.message).toContain('but its record here was lost');
    expect(stack.sandbox.refunds(payment.transactionId)).toHaveLength(1);

    // Its notice, delivered late, ends it: kept on the payment, and the run leaves it.
    stack.sandbox.setChaos({});
    for (const delivery of stack.sandbox.callbacks().filter((c) => c.batchNo === made?.batchNo)) {
      expect((await stack.sandbox.redeliver(delivery.id))?.attempts.at(-1)?.response).toBe('success');
    }
    expect(await mine()).toEqual([]);
    const next = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(next.state).toBe('Failed');
    expect(next.metadata?.message).toContain('refunded outside the store');
  });

  it('attack: refunds the run did not settle within maxAgeMs (one Pending at the gateway, one whose record was lost) are no longer asked about and are handed to a person once, naming their batchNo (found by review)', async () => {
    // A refund the gateway keeps pending, whose notice never comes.
    const pending = await paidCardOrder(stack);
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const open = asRefund(await refundOrder(stack.admin, pending.payment.id, 100));
    expect(open.state).toBe('Pending');
    const lost = TEST_DATABASE === 'postgres' ? await refundWithLostRecord() : undefined;
    // No run settled either in its time (the gateway's read side down, runs missed).
    await new Promise((resolve) => setTimeout(resolve, MAX_AGE_MS + 500));
    const items = await reconcileItems(stack.admin);
    const mine = (reference: string | null | undefined) =>
      items.filter((item) => item.reference === reference);
    expect(mine(open.transactionId)).toEqual([
      expect.objectContaining({
        before: 'Pending',
        after: 'Pending',
        reason: 'left to a person after 6 seconds: said on the order',
      }),
    ]);
    const pendingNotes = await orderNotes(
      stack.admin,
      pending.order.id,
      `Gateway reconciliation stopped asking about refund ${open.metadata?.merTrackNo} (1.00 USD, batchNo ${open.transactionId}) 6 seconds after it was sent`,
    );
    expect(pendingNotes).toHaveLength(1);
    expect(pendingNotes[0]).toContain('if it was made, settle this refund by hand');
    // Said once: the next run finds the note.
    expect(
      (await reconcileItems(stack.admin)).filter((item) => item.reference === open.transactionId),
    ).toEqual([expect.objectContaining({ reason: 'left to a person (said on the order before)' })]);
    const readBacks = (batchNo: string | null | undefined) =>
      stack.sandbox
        .requests()
        .filter((r) => r.operation === 'retrieveRefund' && r.path.includes(String(batchNo)));
    expect(readBacks(open.transactionId)).toEqual([]);
    if (!lost) return; // sql.js: the lost refund's intent rolled back with the request (tests above)
    expect(mine(lost.made?.batchNo)).toEqual([
      expect.objectContaining({
        before: 'record lost',
        after: 'record lost',
        reason: 'left to a person: said on the order',
      }),
    ]);
    expect(readBacks(lost.made?.batchNo)).toEqual([]);
    const notes = await orderNotes(
      stack.admin,
      lost.order.id,
      `refund ${lost.made?.merTrackNo} (5.00 USD) was sent to the gateway`,
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(
      `the gateway's record of it (batchNo ${lost.made?.batchNo}) did not settle it within 6 seconds`,
    );
  });
});

describe('a chargeback look-back that is not whole days from 0 to 366', () => {
  it('stops the start, naming the setting, before anything is served', () => {
    for (const days of ['1.5', '-1', '400', 'ninety', ' ', '+3']) {
      expect(() => buildConfig(settingsFromEnv({ GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS: days }))).toThrow(
        'reconcile.chargebackLookbackDays must be a whole number of days from 0 to 366',
      );
    }
    expect(() => buildConfig(settingsFromEnv({ GATEWAYKIT_RECONCILE_CHARGEBACK_DAYS: '30' }))).not.toThrow();
  });
});
