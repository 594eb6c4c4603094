/**
 * A refund the gateway made whose Medusa record is lost afterwards: Medusa commits its refund row before
 * it calls the provider, but deletes it again when writing the provider's answer fails. The entry the
 * provider wrote on the payment before sending stays (lib/refund-records.ts), so a second refund cannot
 * return the same money again (found by review).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { adminTokenFor } from './support/admin';
import { sql } from './support/database';
import {
  adminPayment,
  adminRefund,
  deliveriesOfBatch,
  paidOrder,
  redeliverLate,
  sandboxRefunds,
} from './support/payments';
import { sandboxControl } from './support/sandbox-pages';
import { api, type Json } from './support/store-api';
import { waitFor } from './support/wait';

const AMOUNT = '3.33';

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
  await sandboxControl('refunds/next', undefined, 'DELETE');
  await sql('drop trigger if exists gk_test_answer_write_fails on payment');
  await sql('drop function if exists gk_test_answer_write_fails()');
});

/** Medusa's write of a refund's answer (an entry of AMOUNT with a batchNo) fails, as a database error would. */
async function failAnswerWrites(): Promise<void> {
  await sql(`create or replace function gk_test_answer_write_fails() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from jsonb_array_elements(coalesce(new.data->'refunds', '[]'::jsonb)) entry
                  where entry->>'amount' = '${AMOUNT}' and entry ? 'batchNo') then
        raise exception 'test: the write of the refund''s answer fails';
      end if;
      return new;
    end $$`);
  await sql(
    'create trigger gk_test_answer_write_fails before update on payment for each row execute function gk_test_answer_write_fails()',
  );
}

describe('a refund whose Medusa record is lost after the gateway made it', () => {
  it('attack: blocks every further refund of the payment until a person settles it; its notice is kept; the money goes back once', async () => {
    const paid = await paidOrder();
    await sandboxControl('chaos', { drop: true });
    await failAnswerWrites();
    const lost = await adminRefund(paid.paymentId, Number(AMOUNT));
    expect(lost.status).toBeGreaterThanOrEqual(400);
    // Medusa deleted its row; the gateway made the refund.
    expect(lost.refundId).toBeUndefined();
    await sql('drop trigger gk_test_answer_write_fails on payment');
    const [made, ...more] = await sandboxRefunds(paid.tradeNo);
    expect(more).toEqual([]);
    expect(made!.refundAmount).toBe(AMOUNT);
    const entries = (await adminPayment(paid.paymentId)).data.refunds as Json[];
    expect(entries).toEqual([
      expect.objectContaining({ merTrackNo: made!.merTrackNo, amount: AMOUNT, status: 'unknown' }),
    ]);

    const refusedWith = async () => {
      const again = await adminRefund(paid.paymentId, Number(AMOUNT));
      expect(again.status).toBe(400);
      expect(JSON.stringify(again.body)).toContain(
        `refund ${made!.merTrackNo} of ${AMOUNT} USD was sent to the gateway at`,
      );
      expect(again.refundId).toBeUndefined();
      expect(await sandboxRefunds(paid.tradeNo)).toHaveLength(1);
    };
    await refusedWith();

    // Its notice, kept by the sandbox, settles the entry: made, so it still blocks (Medusa does not count it).
    const [notice] = await waitFor(async () => {
      const kept = await deliveriesOfBatch(made!.batchNo);
      return kept.length > 0 && kept;
    }, 'the refund notice, kept by the sandbox');
    const late = await redeliverLate(notice!.id, made!.batchNo);
    expect(late.attempts.at(-1)?.response).toBe('success');
    const settled = (await adminPayment(paid.paymentId)).data.refunds as Json[];
    expect(settled).toEqual([
      expect.objectContaining({ merTrackNo: made!.merTrackNo, batchNo: made!.batchNo, status: 'succeeded' }),
    ]);
    await refusedWith();
  });

  it('closed by an administrator once the merchant portal shows it failed: not before a day, then refunds go through again; a storefront cannot close it', async () => {
    const paid = await paidOrder();
    await sandboxControl('chaos', { drop: true });
    await sandboxControl('refunds/next', { outcome: 'pending' });
    await failAnswerWrites();
    expect((await adminRefund(paid.paymentId, Number(AMOUNT))).status).toBeGreaterThanOrEqual(400);
    await sql('drop trigger gk_test_answer_write_fails on payment');
    const [made] = await sandboxRefunds(paid.tradeNo);
    // The gateway fails it; its notice is lost.
    await sandboxControl(`refunds/${made!.batchNo}/settle`, { status: 'fail' });
    expect((await adminRefund(paid.paymentId, 1)).status).toBe(400);

    const close = async (body: Record<string, unknown>, token?: string) =>
      api('POST', '/admin/gatewaykit/refunds/close', { token: token ?? (await adminTokenFor()), body });
    const body = { merTrackNo: made!.merTrackNo, made: false, note: 'the portal shows it failed' };
    const early = await close(body);
    expect(early.status).toBe(400);
    expect(String((early.body as Json).message)).toContain(
      'it can be closed as not made 2 hours after it was sent',
    );
    expect((await close({ ...body, made: 'no' })).status).toBe(400);
    expect((await close({ ...body, batchNo: made!.batchNo })).status).toBe(400);
    // A hostile or made-up refund id: refused by its shape, or not found; nothing changes.
    expect((await close({ ...body, merTrackNo: "ref_' OR '1'='1" })).status).toBe(400);
    expect((await close({ ...body, merTrackNo: 'ref_01MADEUP', made: true })).status).toBe(404);
    expect((await api('POST', '/admin/gatewaykit/refunds/close', { body })).status).toBe(401);

    // Sent an hour ago: still inside the store's wait (notMadeCloseAfterSeconds, 2 hours here).
    const sentHoursAgo = (hours: number) =>
      sql(
        `UPDATE payment SET data = jsonb_set(data, '{refunds,0,requestedAt}', to_jsonb($2::text)) WHERE id = $1`,
        [paid.paymentId, new Date(Date.now() - hours * 60 * 60 * 1000).toISOString()],
      );
    await sentHoursAgo(1);
    expect((await close(body)).status).toBe(400);
    // Three hours later.
    await sentHoursAgo(3);
    const closed = await close(body);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ merTrackNo: made!.merTrackNo, status: 'failed' });
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: made!.merTrackNo, status: 'failed' }),
    ]);
    expect((await close(body)).status).toBe(400);
    const again = await adminRefund(paid.paymentId, Number(AMOUNT));
    expect(again.status).toBe(200);
    expect((await sandboxRefunds(paid.tradeNo)).map((refund) => refund.refundStatus)).toEqual([
      'fail',
      expect.any(String),
    ]);
  });

  it('an honest refund is answered as before: one entry, held by its Medusa row', async () => {
    const paid = await paidOrder();
    const refund = await adminRefund(paid.paymentId, Number(AMOUNT));
    expect(refund.status).toBe(200);
    const entries = (await adminPayment(paid.paymentId)).data.refunds as Json[];
    expect(entries).toEqual([expect.objectContaining({ merTrackNo: refund.refundId, amount: AMOUNT })]);
    expect(entries[0].batchNo).toBeTruthy();
    // The answer replaced the entry written before sending.
    expect(entries[0].sending).toBeUndefined();
    // A second refund of the rest goes through: nothing is lost.
    const second = await adminRefund(paid.paymentId, 1);
    expect(second.status).toBe(200);
    expect(await sandboxRefunds(paid.tradeNo)).toHaveLength(2);
  });
});
