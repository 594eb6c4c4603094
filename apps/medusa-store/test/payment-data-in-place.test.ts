/**
 * Every writer of a payment's `data` writes in place, one statement each (lib/payment-data-writes.ts):
 * a refund's entry written before its request leaves holds no lock the other writers take, so a writer
 * that read the data before it and wrote a whole copy back after it erased it (found by review). Here
 * on the real path: the entry is written by the plugin's own writer in a transaction the test holds open
 * while a chargeback notice reads the payment, and committed only once the notice's write waits for it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayRefund } from '../../../packages/medusa-provider/src/lib/gateway-records';
import { PaymentDataWrites } from '../../../packages/medusa-provider/src/lib/payment-data-writes';
import { RefundRecords } from '../../../packages/medusa-provider/src/lib/refund-records';
import { adminTokenFor } from './support/admin';
import { openTransaction, pluginDatabase, sql, statementsWaitingOn } from './support/database';
import { adminPayment, adminRefund, deliveriesOfBatch, paidOrder, sandboxRefunds } from './support/payments';
import { sandboxControl } from './support/sandbox-pages';
import { api, type Json } from './support/store-api';
import { waitFor } from './support/wait';

/** Data to put back after a test, so a later test's reconciliation finds nothing of it. */
const restore: { paymentId: string; data: Json }[] = [];

afterEach(async () => {
  await sandboxControl('refunds/next', undefined, 'DELETE');
  for (const { paymentId, data } of restore.splice(0)) {
    await sql('UPDATE payment SET data = $2::jsonb WHERE id = $1', [paymentId, JSON.stringify(data)]);
  }
});

/** A refund's entry as the provider writes it right before its request leaves (lib/refund-records.ts). */
function sendingEntry(merTrackNo: string, amount = '1.00'): GatewayRefund {
  return {
    merTrackNo,
    amount,
    currency: 'USD',
    refundType: '2',
    status: 'unknown',
    requestedAt: new Date().toISOString(),
    sending: true,
  };
}

async function paymentData(paymentId: string): Promise<Json> {
  const [row] = await sql<{ data: Json }>('SELECT data FROM payment WHERE id = $1', [paymentId]);
  return row!.data;
}

/**
 * Runs `write` (a locked writer reached through the store: a notice, an admin request) while a refund's
 * `entry` is written on the payment by the plugin's own writer (lib/refund-records.ts) in a transaction
 * held open until `write`'s statement on the payment waits for it: `write` read the data before the
 * entry, and stores after it. Returns what `write` gave.
 */
async function whileEntryWritten<T>(
  paymentId: string,
  entry: GatewayRefund,
  write: () => Promise<T>,
): Promise<T> {
  const held = await openTransaction();
  let written: Promise<T> | undefined;
  try {
    expect(await new RefundRecords(held.db).recordSending(paymentId, entry)).toBe(true);
    written = write();
    // Kept from an unhandled rejection while waiting; awaited below.
    written.catch(() => {});
    await waitFor(
      async () =>
        (await statementsWaitingOn(held.pid)).some((statement) => /update\s+"?payment"?\s/i.test(statement)),
      "the locked writer's statement on the payment, waiting for the entry's transaction",
    );
    await held.commit();
  } catch (error) {
    await held.rollback().catch(() => {});
    throw error;
  }
  return written;
}

async function acknowledged(batchNo: string): Promise<void> {
  await waitFor(async () => {
    const list = await deliveriesOfBatch(batchNo);
    return list.length > 0 && list.every((delivery) => delivery.state === 'delivered');
  }, `the notice of ${batchNo} to be acknowledged`);
}

describe("a payment's data written in place", () => {
  it('attack: a refund entry written while a chargeback notice is being stored survives the notice; both are kept (found by review)', async () => {
    const paid = await paidOrder();
    restore.push({ paymentId: paid.paymentId, data: await paymentData(paid.paymentId) });
    const entry = sendingEntry('ref_in_place_chargeback');
    const { batchNo } = (await whileEntryWritten(paid.paymentId, entry, () =>
      sandboxControl('chargebacks', {
        tradeNo: paid.tradeNo,
        amount: '2.00',
        reason: 'D4837-No Cardholder Authorization',
      }),
    )) as { batchNo: string };
    await acknowledged(batchNo);

    const data = (await adminPayment(paid.paymentId)).data;
    expect(data.chargebacks).toEqual([expect.objectContaining({ batchNo, amount: '2.00' })]);
    // The entry written in between is still there (a whole copy of the data read before it erased it).
    expect(data.refunds).toEqual([{ ...entry }]);
    expect(data.outcome).toMatchObject({ status: 'succeeded', tradeNo: paid.tradeNo });
  });

  it('attack: a refund entry written while a refund notice settles another refund survives it; both are kept', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 1);
    expect(refund.status).toBe(200);
    restore.push({ paymentId: paid.paymentId, data: await paymentData(paid.paymentId) });
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    const entry = sendingEntry('ref_in_place_notice');
    await whileEntryWritten(paid.paymentId, entry, () =>
      sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' }),
    );
    await acknowledged(gateway!.batchNo);

    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({
        merTrackNo: refund.refundId,
        batchNo: gateway!.batchNo,
        status: 'succeeded',
      }),
      { ...entry },
    ]);
  });

  it('attack: a refund entry written while an administrator closes another refund survives the close; both are kept', async () => {
    const paid = await paidOrder();
    restore.push({ paymentId: paid.paymentId, data: await paymentData(paid.paymentId) });
    // A refund nothing settled (its answer lost), as the reconciliation hands it over.
    const unsettled = { ...sendingEntry('ref_in_place_unsettled'), sending: undefined };
    await new PaymentDataWrites(pluginDatabase).addRefunds(paid.paymentId, [unsettled]);
    const entry = sendingEntry('ref_in_place_close');
    const closed = await whileEntryWritten(paid.paymentId, entry, async () =>
      api('POST', '/admin/gatewaykit/refunds/close', {
        token: await adminTokenFor(),
        body: { merTrackNo: unsettled.merTrackNo, made: true, note: 'the portal shows it made' },
      }),
    );
    expect(closed.status).toBe(200);

    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: unsettled.merTrackNo, status: 'succeeded' }),
      { ...entry },
    ]);
  });

  it("each writer changes only what it names, on the store's own database; repeats add nothing", async () => {
    const paid = await paidOrder();
    const before = await paymentData(paid.paymentId);
    restore.push({ paymentId: paid.paymentId, data: before });
    const writes = new PaymentDataWrites(pluginDatabase);
    const a = sendingEntry('ref_a');
    const b = sendingEntry('ref_b', '2.00');

    expect(await writes.addRefunds(paid.paymentId, [a, b])).toBe(true);
    expect(await writes.addRefunds(paid.paymentId, [{ ...a, status: 'succeeded' }])).toBe(true);
    expect(await writes.addRefunds('pay_no_such_payment', [a])).toBe(false);
    expect((await paymentData(paid.paymentId)).refunds).toEqual([a, b]);

    // Replaced by merTrackNo, in its place; one not listed is added at the end.
    const answered = { ...a, status: 'pending' as const, batchNo: 'R1', sending: undefined };
    await writes.putRefund(paid.paymentId, answered);
    const c = { ...sendingEntry('ref_c'), status: 'succeeded' as const, sending: undefined };
    await writes.putRefund(paid.paymentId, c);
    const listed = (await paymentData(paid.paymentId)).refunds;
    expect(listed).toEqual([answered, b, c]);
    // No longer waiting for its answer: the mark is gone from the stored entry, not only undefined.
    expect(Object.keys(listed[0])).not.toContain('sending');

    // A request's answer lands only on an entry still waiting for it (b); one a notice settled stays (c).
    const bAnswered = { ...b, status: 'pending' as const, batchNo: 'R2', sending: undefined };
    await writes.answerSending(paid.paymentId, bAnswered);
    await writes.answerSending(paid.paymentId, { ...c, status: 'pending', batchNo: 'R3' });
    expect((await paymentData(paid.paymentId)).refunds).toEqual([answered, bAnswered, c]);

    await writes.markRefundAlerted(paid.paymentId, 'ref_b', '2026-11-29T08:00:00.000Z');
    await writes.markRefundAlerted(paid.paymentId, 'ref_b', '2026-11-29T09:00:00.000Z');
    await writes.removeRefund(paid.paymentId, 'ref_a');
    expect((await paymentData(paid.paymentId)).refunds).toEqual([
      { ...bAnswered, alertedAt: '2026-11-29T08:00:00.000Z' },
      c,
    ]);

    const chargeback = {
      batchNo: 'CB_in_place',
      tradeNo: paid.tradeNo,
      amount: '3.00',
      currency: 'USD',
      receivedAt: '2026-11-29T08:00:00.000Z',
    };
    await writes.addChargeback(paid.paymentId, chargeback);
    await writes.addChargeback(paid.paymentId, { ...chargeback, receivedAt: '2026-11-29T09:00:00.000Z' });
    await writes.addUncountedRefunds(paid.paymentId, ['P1']);
    await writes.addUncountedRefunds(paid.paymentId, ['P1', 'P2']);
    // A value that comes out SQL NULL (no time) leaves the data whole, never NULL, and still unmarked.
    await writes.markHeldAlerted(paid.paymentId, null as unknown as string);
    expect(await paymentData(paid.paymentId)).toMatchObject({ chargebacks: [chargeback] });
    await writes.markHeldAlerted(paid.paymentId, '2026-11-29T08:00:00.000Z');
    await writes.markHeldAlerted(paid.paymentId, '2026-11-29T09:00:00.000Z');

    // An answer whose entry is gone (erased by a whole write of another refund's answer) adds it back.
    const d = { ...sendingEntry('ref_d'), status: 'pending' as const, batchNo: 'R4' };
    await writes.answerSending(paid.paymentId, d);

    const after = await paymentData(paid.paymentId);
    expect(after).toEqual({
      ...before,
      refunds: [{ ...bAnswered, alertedAt: '2026-11-29T08:00:00.000Z' }, c, d],
      chargebacks: [chargeback],
      refundedAtGateway: ['P1', 'P2'],
      heldAlertedAt: '2026-11-29T08:00:00.000Z',
    });
  });
});
