import { afterEach, describe, expect, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { CARD, complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { uniqueEmail } from './support/email';
import { FAIL_UNRECORDED_AFTER_SECONDS, SECOND_GATEWAY_NO, SECOND_SIGN_KEY } from './support/global-setup';
import { ordersOf } from './support/orders';
import {
  adminFeed,
  adminPayment,
  adminRefund,
  deliveriesOfBatch,
  paidOrder,
  reconcileNow,
  redeliverAgain,
  redeliverLate,
  sandboxRefunds,
} from './support/payments';
import { CARDS, finishWithoutReturn, sandboxControl } from './support/sandbox-pages';
import { serverLog, serverLogSoFar } from './support/server-log';
import { postTransactionCallback } from './support/signed-callback';
import { api, expectOk, type Json } from './support/store-api';
import { waitFor } from './support/wait';

// Counts and absences are read after `await serverLogSoFar()`: the server's lines reach the file late.
const log = serverLog;

/** How many `tag` alerts (ORDER NOT PAID, PAID BUT NOT APPLIED, …) the server logged for session `orderNo`. */
const alertsLogged = (tag: string, orderNo: string) =>
  log().split(`${tag}: Gateway payment orderNo ${orderNo}`).length - 1;

afterEach(async () => {
  await sandboxControl('faults', undefined, 'DELETE');
  await sandboxControl('chaos', undefined, 'DELETE');
  await sandboxControl('refunds/next', undefined, 'DELETE');
});

/** A logged-in shopper's cart with a saved-card session, ready to complete. */
async function cardCart() {
  const { token, email } = await registerCustomer();
  const card = await saveCard(token, CARDS.success);
  const { cartId, collectionId } = await readyCart({ token, email });
  const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
  return { token, email, cartId, session, cardId: card.id };
}

async function chargesOf(orderNo: string): Promise<Json[]> {
  const requests = (await sandboxControl('requests')) as Json[];
  return requests.filter(
    (r) =>
      (r.operation === 'confirmCharge' || r.path?.endsWith('/confirmCharge')) &&
      JSON.stringify(r).includes(orderNo),
  );
}

describe('reconciliation (POST /admin/gatewaykit/reconcile, the job)', () => {
  it('a charge whose answer and callback were lost: the run finds the trade and the order completes once', async () => {
    const { token, email, cartId, session } = await cardCart();
    await sandboxControl('chaos', { drop: true });
    await sandboxControl('faults', { route: 'confirmCharge', kind: 'commit-then-drop' });

    const first = await complete(cartId, token);
    expect(first.status).toBe(400);
    expect((await currentSession(cartId, token)).data.outcome.status).toBe('unknown');
    expect(await ordersOf(email)).toEqual([]);

    const { status, body } = await reconcileNow({ orderNos: [session.id] });
    expect(status).toBe(200);
    expect(body.attempts).toEqual([
      expect.objectContaining({
        orderNo: session.id,
        account: 'gatewaykit',
        result: 'changed',
        status: 'succeeded',
      }),
    ]);
    expect(body.attempts[0].reason).toMatch(/the gateway recorded trade \d+ as success/);

    const orders = await waitFor(async () => {
      const list = await ordersOf(email);
      return list.length > 0 && list;
    }, 'the order placed by the reconciliation');
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_status).toBe('captured');
    expect(orders[0]!.payment_collections[0].payments).toHaveLength(1);
    expect(await chargesOf(session.id)).toHaveLength(1);
    const again = await complete(cartId, token);
    expect(again.body.order.id).toBe(orders[0]!.id);

    // A second run and the dropped callback delivered late change nothing.
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    const [dropped] = ((await sandboxControl('callbacks')) as Json[]).filter((d) => d.orderNo === session.id);
    await sandboxControl(`callbacks/${dropped.id}/redeliver`, {});
    await waitFor(async () => {
      const [delivery] = ((await sandboxControl('callbacks')) as Json[]).filter((d) => d.id === dropped.id);
      return delivery.state === 'delivered';
    }, 'the late callback to be acknowledged');
    expect(await ordersOf(email)).toHaveLength(1);
    expect(await chargesOf(session.id)).toHaveLength(1);
  });

  it('a charge the gateway never recorded stays pending while young, then ends failed; the cart pays again', async () => {
    const { token, email, cartId, session, cardId } = await cardCart();
    await sandboxControl('faults', { route: 'confirmCharge', kind: '5xx' });
    expect((await complete(cartId, token)).status).toBe(400);
    const sent = await currentSession(cartId, token);
    expect(sent.data.outcome.status).toBe('unknown');

    const sentAt = await youngAttempt(session.id);
    const young = await reconcileNow({ orderNos: [session.id] });
    expect(young.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'unknown' }),
    ]);
    expect(young.body.attempts[0].reason).toMatch(/no record of this payment yet/);

    await pastNoRecordThreshold(sentAt);
    const old = await reconcileNow({ orderNos: [session.id] });
    expect(old.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'failed' }),
    ]);
    const failed = await currentSession(cartId, token);
    expect(failed.status).toBe('error');
    expect(failed.data.outcome).toMatchObject({
      status: 'failed',
      reason: 'the gateway has no record of this payment',
    });
    expect(await ordersOf(email)).toEqual([]);

    await serverLogSoFar();
    expect(log()).not.toContain(`ORDER NOT PAID: Gateway payment orderNo ${session.id}`);
    // Its cart was looked at once, under its lock: no order, nothing for a later run.
    expect(failed.data.unpaidOrderCheck).toBe('not-needed');
    // Nothing was charged, so the shopper pays with a new session: one order, one successful charge.
    const retry = await startSession(
      await collectionOf(cartId, token),
      CARD,
      { customerPaymentMethodId: cardId },
      token,
    );
    const placed = await complete(cartId, token);
    expect(placed.body.type).toBe('order');
    expect(await chargesOf(retry.id)).toHaveLength(1);
    expect(await ordersOf(email)).toHaveLength(1);
  });

  /**
   * What a completion killed while charging leaves: the charge's answer lost (unknown), and the cart
   * completed, since Medusa places the order before it authorizes the payment and nothing compensated it.
   */
  async function chargeCutOffAfterOrder() {
    const { token, cartId, session } = await cardCart();
    await sandboxControl('faults', { route: 'confirmCharge', kind: '5xx' });
    expect((await complete(cartId, token)).status).toBe(400);
    const sent = await currentSession(cartId, token);
    expect(sent.data.outcome.status).toBe('unknown');
    await sql('update cart set completed_at = now() where id = $1', [cartId]);
    return { token, cartId, session, sent };
  }

  it('attack: a charge cut off after Medusa placed its order (the process was killed while charging): the failure the run records is reported ORDER NOT PAID (found by a crash-window review)', async () => {
    const { session, sent } = await chargeCutOffAfterOrder();

    await pastNoRecordThreshold(sent.data.attemptedAt);
    const old = await reconcileNow({ orderNos: [session.id] });
    expect(old.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'failed' }),
    ]);
    await waitFor(async () => unpaidAlerts(session.id) === 1, 'the order-not-paid alert');
    await expectNoSecondUnpaidAlert(session.id);
  });

  const unpaidAlerts = (orderNo: string) => alertsLogged('ORDER NOT PAID', orderNo);

  /** A reported failure is marked in its session, and a later run neither lists nor reports it. */
  async function expectNoSecondUnpaidAlert(orderNo: string) {
    // Marked right after the alert (alert first: a crash repeats it rather than losing it).
    await waitFor(async () => {
      const [row] = await sql<{ data: Json }>('select data from payment_session where id = $1', [orderNo]);
      return row?.data.unpaidOrderCheck === 'reported';
    }, 'the session marked reported');
    expect((await reconcileNow({ orderNos: [orderNo] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(unpaidAlerts(orderNo)).toBe(1);
  }

  it("attack: the same cut-off charge declined by the gateway's callback instead: ORDER NOT PAID too (found by review)", async () => {
    const { token, cartId, session, sent } = await chargeCutOffAfterOrder();

    const answer = await postTransactionCallback(
      { id: session.id, data: sent.data },
      { status: 'fail', tradeNo: `T${session.id.slice(-12)}`, orderInfo: 'Declined by the issuer' },
    );
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    expect((await currentSession(cartId, token)).data.outcome.status).toBe('failed');
    await waitFor(async () => unpaidAlerts(session.id) === 1, 'the order-not-paid alert');
    await expectNoSecondUnpaidAlert(session.id);
  });

  it('attack: a cut-off charge whose decline was recorded by a process that died before it looked at the cart: the run reports ORDER NOT PAID, once (found by review)', async () => {
    const { token, cartId, session, sent } = await chargeCutOffAfterOrder();
    // What the decline's recording writes, in one update; the process is killed before the alert.
    const declined = {
      ...sent.data,
      outcome: { orderNo: session.id, status: 'failed', reason: 'Declined by the issuer', tradeNo: 'T1' },
      error: 'Declined by the issuer',
      unpaidOrderCheck: 'due',
    };
    await sql(`update payment_session set data = $2::jsonb, status = 'error' where id = $1`, [
      session.id,
      JSON.stringify(declined),
    ]);
    await serverLogSoFar();
    expect(unpaidAlerts(session.id)).toBe(0);
    // Until its cart is looked at, the session stays: a new one would make Medusa delete it, and the
    // report with it.
    const collectionId = await collectionOf(cartId, token);
    const replaced = await api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
      token,
      body: { provider_id: HOSTED },
    });
    expect(replaced.status).toBe(400);
    expect(replaced.body.message).toMatch(
      /failed, and whether the cart's order was left unpaid is still being checked/,
    );
    expect(await sql('select id from payment_session where id = $1', [session.id])).toHaveLength(1);

    const run = await reconcileNow({ orderNos: [session.id] });
    expect(run.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'reported', status: 'failed' }),
    ]);
    await waitFor(async () => unpaidAlerts(session.id) === 1, 'the order-not-paid alert');
    await expectNoSecondUnpaidAlert(session.id);
  });

  it('a charge the gateway answered pending, missing from its records later: left open for a person, never failed, handed over once past the look-back; settled once the records show it', async () => {
    // The gateway's later success is only in its records: every callback is lost.
    await sandboxControl('chaos', { drop: true });
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.pendingThenSuccess);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    const placed = await complete(cartId, token);
    expect(placed.body.type).toBe('order');
    const session = await currentSession(cartId, token);
    expect(session.data.outcome).toMatchObject({ status: 'pending', tradeNo: expect.any(String) });

    // The gateway's reads lag behind: neither the list nor the trade query shows the trade.
    await sandboxControl('faults', { route: 'listTransactions', kind: 'unlisted', times: 'always' });
    await sandboxControl('faults', { route: 'retrieveTransaction', kind: 'unlisted', times: 'always' });
    await pastNoRecordThreshold(session.data.attemptedAt);
    const hidden = await reconcileNow({ orderNos: [session.id] });
    expect(hidden.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'pending' }),
    ]);
    expect(hidden.body.attempts[0].reason).toMatch(
      /^the gateway acknowledged this payment as trade \S+ but has no record of it .*look it up in the merchant portal$/,
    );
    expect((await currentSession(cartId, token)).data.outcome.status).toBe('pending');
    expect(log()).toContain(`gatewaykit: ${session.id} needs a person`);
    await serverLogSoFar();
    expect(log()).not.toContain(`ORDER NOT PAID: Gateway payment orderNo ${session.id}`);

    // Still so past the run's look-back (30 days, staged): handed to a person once, not dropped silently.
    const handedOver = () => alertsLogged('PAYMENT NOT SETTLED', session.id);
    const setSentAt = (at: string) =>
      sql(
        `update payment_session set data = jsonb_set(data::jsonb, '{attemptedAt}', to_jsonb($2::text)) where id = $1`,
        [session.id, at],
      );
    await setSentAt(new Date(Date.now() - 31 * 24 * 60 * 60 * 1000).toISOString());
    const old = await reconcileNow({ orderNos: [session.id] });
    expect(old.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'handed-over', status: 'pending' }),
    ]);
    await waitFor(async () => handedOver() === 1, 'the payment-not-settled alert');
    const again = await reconcileNow({ orderNos: [session.id] });
    expect(again.body.attempts).toEqual([expect.objectContaining({ orderNo: session.id, result: 'none' })]);
    expect(again.body.attempts[0].reason).toMatch(/left to a person$/);
    expect(handedOver()).toBe(1);
    await setSentAt(session.data.attemptedAt);

    // Once the records show the trade, it is settled like its callback would have: one captured payment.
    await sandboxControl('faults', undefined, 'DELETE');
    // The pending card succeeds a few (sandbox) seconds after the charge; until then the run finds it pending.
    const shown = await waitFor(async () => {
      const run = await reconcileNow({ orderNos: [session.id] });
      return run.body.attempts[0]?.status !== 'pending' && run;
    }, 'the gateway to record the pending charge as settled');
    expect(shown.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'succeeded' }),
    ]);
    const settled = await waitFor(async () => {
      const [order] = await ordersOf(email);
      return order?.payment_status === 'captured' && order;
    }, 'the reconciled payment to be captured');
    expect(settled.id).toBe(placed.body.order.id);
    expect(settled.payment_collections[0].payments).toHaveLength(1);
    expect(await chargesOf(session.id)).toHaveLength(1);
  });

  it('an acknowledged charge left open: only an admin closes it, with a note, once the portal shows no charge; a paid session is never closed', async () => {
    await sandboxControl('chaos', { drop: true });
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.pendingThenSuccess);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    expect((await complete(cartId, token)).body.type).toBe('order');
    const session = await currentSession(cartId, token);
    await sandboxControl('faults', { route: 'listTransactions', kind: 'unlisted', times: 'always' });
    await sandboxControl('faults', { route: 'retrieveTransaction', kind: 'unlisted', times: 'always' });
    await pastNoRecordThreshold(session.data.attemptedAt);
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts[0]).toMatchObject({
      result: 'none',
    });

    // Attacks: the shopper, a stranger, and bodies the route does not take change nothing.
    const close = (body: unknown, asToken?: string) =>
      api('POST', '/admin/gatewaykit/attempts/close', { token: asToken, body });
    expect((await close({ orderNo: session.id, note: 'mine' }, token)).status).toBe(401);
    expect((await close({ orderNo: session.id, note: 'mine' })).status).toBe(401);
    const admin = await adminTokenFor();
    for (const [body, field] of [
      [{ orderNo: session.id }, /^note: /],
      [{ orderNo: session.id, note: 'x'.repeat(201) }, /^note: /],
      [{ orderNo: '../x', note: 'n' }, /^orderNo: /],
      [{ orderNo: session.id, note: 'n', status: 'succeeded' }, /^status: not accepted here/],
    ] as const) {
      const refused = await close(body, admin);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(field);
    }
    expect((await close({ orderNo: 'payses_none', note: 'n' }, admin)).status).toBe(404);
    expect((await currentSession(cartId, token)).data.outcome.status).toBe('pending');

    // Sent seconds ago (the reconciliation's wait is 600 s here): its answer or a callback may still
    // come, so closing it now would free the cart for a second charge. Refused; nothing changes.
    const tooEarly = await close({ orderNo: session.id, note: 'no charge in the portal' }, admin);
    expect(tooEarly.status).toBe(400);
    expect(tooEarly.body.message).toMatch(
      new RegExp(
        `^payment attempt ${session.id} was sent \\d+ s ago: .+ it can be closed in \\d+ s, if it is still open then$`,
      ),
    );
    expect((await currentSession(cartId, token)).data.outcome.status).toBe('pending');
    // An hour later (its claim's time moved back), the portal still shows no charge.
    await sql(
      `UPDATE payment_session SET data = jsonb_set(data, '{attemptedAt}', to_jsonb($1::text)) WHERE id = $2`,
      [new Date(Date.now() - 3_600_000).toISOString(), session.id],
    );

    // Honest: the admin closes it, naming what the portal showed (a card number in the note is masked).
    const closed = await close(
      { orderNo: session.id, note: ' no charge in the portal, card 4242424242424242 ' },
      admin,
    );
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({
      orderNo: session.id,
      status: 'failed',
      reason: 'closed by the merchant: no charge in the portal, card 424242***4242',
    });
    expect((await currentSession(cartId, token)).data.outcome).toMatchObject({
      status: 'failed',
      code: 'CLOSED_BY_MERCHANT',
    });
    expect(log()).toContain(`gatewaykit: ${session.id} closed by the merchant`);

    // The gateway had taken the money after all: its callback, delivered late, still wins (captured).
    await sandboxControl('faults', undefined, 'DELETE');
    await sandboxControl('chaos', undefined, 'DELETE');
    const dropped = await waitFor(async () => {
      const deliveries = ((await sandboxControl('callbacks')) as Json[]).filter(
        (delivery) => delivery.orderNo === session.id && delivery.state !== 'delivered',
      );
      return deliveries.length > 0 && deliveries;
    }, 'the dropped success callback');
    for (const delivery of dropped) await sandboxControl(`callbacks/${delivery.id}/redeliver`, {});
    await waitFor(async () => {
      const [order] = await ordersOf(email);
      return order?.payment_status === 'captured';
    }, 'the late success to be captured');
    // Paid now: it can no longer be closed.
    const again = await close({ orderNo: session.id, note: 'again' }, admin);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`payment attempt ${session.id} is already succeeded`);
  });

  it("a shopper who paid on the gateway's page, with the return and every callback lost: the run places the order once", async () => {
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    const { cartId, collectionId } = await readyCart();
    const session = await startSession(collectionId, HOSTED);
    expect(session.status).toBe('requires_more');

    // Still on the page: the gateway lists it pending, and the run leaves the page as it is.
    await youngAttempt(session.id);
    const onPage = await reconcileNow({ orderNos: [session.id] });
    expect(onPage.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'redirect' }),
    ]);
    expect((await currentSession(cartId)).status).toBe('requires_more');

    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const paid = await reconcileNow({ orderNos: [session.id] });
    expect(paid.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'succeeded' }),
    ]);
    await waitFor(async () => {
      const { body } = await api('GET', `/store/carts/${cartId}`);
      return Boolean(body.cart?.completed_at);
    }, 'the paid cart to become an order');
    const completed = await complete(cartId);
    expect(completed.body.type).toBe('order');
    const order = await adminOrder(completed.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments).toHaveLength(1);
    // A second run finds nothing left to do.
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
  });

  /**
   * A page paid with the return and every callback lost, then the success stored in the session as the
   * callback's recording writes it, with nothing after it: the state a process killed between storing
   * a success and applying it leaves (or Medusa's payment workflow throwing there).
   */
  async function storedButNotApplied(options: { failedFirst?: boolean } = {}) {
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    const email = uniqueEmail('stored-success');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const [callback] = ((await sandboxControl('callbacks')) as Json[]).filter(
      (d) => d.orderNo === session.id && d.type === 'transaction.success',
    );
    const outcome = {
      orderNo: session.id,
      status: 'succeeded',
      tradeNo: callback.tradeNo,
      amount: session.data.amount,
      currency: session.data.currency,
    };
    // A success stored over a failure (the page expired, then was paid late) keeps the `error` status.
    await sql(
      `update payment_session set data = jsonb_set(data::jsonb, '{outcome}', $2::jsonb),
         status = $3, updated_at = now() - interval '1 hour' where id = $1`,
      [session.id, JSON.stringify(outcome), options.failedFirst ? 'error' : 'requires_more'],
    );
    return { email, cartId, session, tradeNo: String(callback.tradeNo) };
  }

  it('a success stored but never applied (the process died between storing it and the order): the run makes its order, once', async () => {
    for (const failedFirst of [false, true]) {
      await storedButNotAppliedIsApplied(failedFirst);
    }
  });

  async function storedButNotAppliedIsApplied(failedFirst: boolean) {
    const { email, cartId, session } = await storedButNotApplied({ failedFirst });
    expect(await ordersOf(email)).toEqual([]);

    const run = await reconcileNow({ orderNos: [session.id] });
    expect(run.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'applied', status: 'succeeded' }),
    ]);
    const [order, ...more] = await ordersOf(email);
    expect(more).toEqual([]);
    expect(order!.payment_status).toBe('captured');
    expect(order!.payment_collections[0].payments).toHaveLength(1);
    expect((await complete(cartId)).body.order.id).toBe(order!.id);
    // Nothing is left for a second run.
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(log()).not.toContain(`PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`);
  }

  it('attack: a success that cannot become an order (the cart now costs more than was paid) is reported once by its callback, and the run neither places it nor reports it again', async () => {
    const email = uniqueEmail('stored-moved');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    // A change that left the page's session in place (as in cart-total.test.ts).
    await sql('update cart_line_item set quantity = quantity + 1 where cart_id = $1', [cartId]);
    await sandboxControl('chaos', { noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const alerts = () => alertsLogged('PAID BUT NOT APPLIED', session.id);
    await waitFor(async () => alerts() === 1, "the callback's paid-but-not-applied alert");
    // Alert first, then the mark: the run is judged once the mark is written too.
    await waitFor(async () => {
      const [row] = await sql<{ data: Json }>('select data from payment_session where id = $1', [session.id]);
      return Boolean(row?.data.unappliedReportedAt);
    }, 'the session marked reported');
    await sql(`update payment_session set updated_at = now() - interval '1 hour' where id = $1`, [
      session.id,
    ]);

    const run = await reconcileNow({ orderNos: [session.id] });
    expect(run.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'succeeded' }),
    ]);
    expect(run.body.attempts[0].reason).toMatch(
      /reported as PAID BUT NOT APPLIED at .*; a person settles it/,
    );
    await serverLogSoFar();
    expect(alerts()).toBe(1);
    expect(await ordersOf(email)).toEqual([]);
    expect((await complete(cartId)).status).toBe(400);
    expect(await ordersOf(email)).toEqual([]);
  });

  it('attack: a stored success never applied that cannot become an order is reported once by the run, then left to a person', async () => {
    const { email, cartId, session } = await storedButNotApplied();
    await sql('update cart_line_item set quantity = quantity + 1 where cart_id = $1', [cartId]);
    const alerts = () => alertsLogged('PAID BUT NOT APPLIED', session.id);

    const first = await reconcileNow({ orderNos: [session.id] });
    expect(first.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'reported', status: 'succeeded' }),
    ]);
    await waitFor(async () => alerts() === 1, 'the paid-but-not-applied alert');
    // The mark is a write: past the minute a named session's recording is given again.
    await sql(`update payment_session set updated_at = now() - interval '1 hour' where id = $1`, [
      session.id,
    ]);
    const second = await reconcileNow({ orderNos: [session.id] });
    expect(second.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'succeeded' }),
    ]);
    await serverLogSoFar();
    expect(alerts()).toBe(1);
    expect(await ordersOf(email)).toEqual([]);
  });

  it('a gateway page left unpaid: failed once it has expired, asked about no more; paid late after all, the order is placed', async () => {
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    const { cartId, collectionId } = await readyCart();
    const session = await startSession(collectionId, HOSTED);
    await pastNoRecordThreshold(session.data.attemptedAt);
    const expired = await reconcileNow({ orderNos: [session.id] });
    expect(expired.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'failed' }),
    ]);
    expect(expired.body.attempts[0].reason).toMatch(
      /still lists trade \S+ as pending .*: the gateway's page expired unpaid$/,
    );
    const failed = await currentSession(cartId);
    expect(failed.status).toBe('error');
    expect(failed.data.outcome).toMatchObject({ status: 'failed', code: 'PAGE_EXPIRED' });
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);

    // The shopper pays on the (sandbox's, still open) page after all: the callback's success wins.
    await sandboxControl('chaos', { noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    await waitFor(async () => {
      const { body } = await api('GET', `/store/carts/${cartId}`);
      return Boolean(body.cart?.completed_at);
    }, 'the late payment to place the order');
    const order = await adminOrder((await complete(cartId)).body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments).toHaveLength(1);
  });

  it('a gateway page whose answer was lost (so never shown to the shopper): failed once it has expired, and the cart pays again (found by a crash-window review)', async () => {
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    await sandboxControl('faults', { route: 'checkoutPayment', kind: 'commit-then-drop' });
    const email = uniqueEmail('page-lost');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    expect(session.data.outcome).toMatchObject({ status: 'unknown' });
    expect(session.data.redirectUrl).toBeUndefined();
    await sandboxControl('faults', undefined, 'DELETE');

    // The gateway made the page and lists it pending; nobody was sent there.
    await pastNoRecordThreshold(session.data.attemptedAt);
    const expired = await reconcileNow({ orderNos: [session.id] });
    expect(expired.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'changed', status: 'failed' }),
    ]);
    expect(expired.body.attempts[0].reason).toMatch(/the answer naming the page never arrived/);
    const failed = await currentSession(cartId);
    expect(failed.status).toBe('error');
    expect(failed.data.outcome).toMatchObject({ status: 'failed', code: 'PAGE_EXPIRED' });
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);

    // The cart is no longer held: a new page is paid, one order.
    await sandboxControl('chaos', { noReturn: 'always' });
    const again = await startSession(collectionId, HOSTED);
    await finishWithoutReturn(again.data.redirectUrl, 'success', CARDS.success);
    // The order is readable a moment before its captured payment is (the callback's own completion).
    const [order, ...more] = await waitFor(async () => {
      const list = await ordersOf(email);
      return list.some((placed) => placed.payment_status === 'captured') && list;
    }, 'the order paid on the new page');
    expect(more).toEqual([]);
    expect(order!.payment_status).toBe('captured');
  });

  /** A guest's hosted page, then a cart change: Medusa deletes the page's session (and the provider keeps it). */
  async function pageDeletedByCartChange(tag: string) {
    const email = uniqueEmail(tag);
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    const { cart } = await expectOk(api('GET', `/store/carts/${cartId}`));
    await expectOk(
      api('POST', `/store/carts/${cartId}/line-items`, {
        body: { variant_id: cart.items[0].variant_id, quantity: 1 },
      }),
    );
    expect(await sql('select id from payment_session where id = $1', [session.id])).toEqual([]);
    return { email, session };
  }

  const unappliedAlerts = (orderNo: string) => alertsLogged('PAID BUT NOT APPLIED', orderNo);

  const keptPage = async (orderNo: string) =>
    (await sql<Json>('select * from gatewaykit_deleted_page where order_no = $1', [orderNo]))[0];

  it('attack: a page paid after a cart change deleted its session, with every callback lost: the run reports PAID BUT NOT APPLIED, once (found by review)', async () => {
    const { email, session } = await pageDeletedByCartChange('deleted-page-paid');
    expect(await keptPage(session.id)).toMatchObject({ ended_as: null, amount: session.data.amount });
    // A success signed by another account's key (a test account's may be public) ends nothing here.
    const forged = await postTransactionCallback(
      session,
      { status: 'success', tradeNo: 'T-FORGED', orderInfo: 'Success' },
      { gatewayNo: SECOND_GATEWAY_NO, signKey: SECOND_SIGN_KEY },
    );
    expect(forged.status).toBe(200);
    expect(await keptPage(session.id)).toMatchObject({ ended_as: null });
    await serverLogSoFar();
    const forgedAlerts = unappliedAlerts(session.id);
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);

    const run = await reconcileNow({ orderNos: [session.id] });
    expect(run.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'reported', status: 'succeeded' }),
    ]);
    await waitFor(
      async () => unappliedAlerts(session.id) === forgedAlerts + 1,
      'the paid-but-not-applied alert',
    );
    expect(await keptPage(session.id)).toMatchObject({ ended_as: 'reported' });
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(unappliedAlerts(session.id)).toBe(forgedAlerts + 1);
    expect(await ordersOf(email)).toEqual([]);
  });

  it('a page paid after a cart change deleted its session, with its callback delivered: the callback reports it, and the run not again', async () => {
    const { email, session } = await pageDeletedByCartChange('deleted-page-callback');
    await sandboxControl('chaos', { noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    await waitFor(async () => unappliedAlerts(session.id) === 1, "the callback's paid-but-not-applied alert");
    expect(log()).toContain('its payment session was deleted (the cart changed)');
    await waitFor(
      async () => (await keptPage(session.id))?.ended_as === 'reported',
      'the page marked reported',
    );

    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(unappliedAlerts(session.id)).toBe(1);
    expect(await ordersOf(email)).toEqual([]);
  });

  /**
   * A page paid after a cart change deleted its session, its callback delivered: reported PAID BUT NOT
   * APPLIED and marked (the write after the alert) before the test goes on; with the page's trade.
   */
  async function paidDeletedPage(tag: string) {
    const { session } = await pageDeletedByCartChange(tag);
    await sandboxControl('chaos', { noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    await waitFor(async () => unappliedAlerts(session.id) === 1, "the callback's paid-but-not-applied alert");
    await waitFor(
      async () => (await keptPage(session.id))?.ended_as === 'reported',
      'the page marked reported',
    );
    const { orders } = await sandboxControl('state');
    const trade = orders.find((o: Json) => o.orderNo === session.id && o.orderStatus === 'success');
    return { session, tradeNo: String(trade.tradeNo) };
  }

  /** How many CHARGEBACK ON UNAPPLIED PAYMENT alerts the server logged for chargeback `batchNo`. */
  const pageChargebackAlerts = (batchNo: string) =>
    log().split(`CHARGEBACK ON UNAPPLIED PAYMENT: Chargeback ${batchNo}`).length - 1;

  it('a chargeback notice for a page paid after a cart change deleted its session: kept on the page and alerted CHARGEBACK ON UNAPPLIED PAYMENT (no portal refund) once; the notice again, and a run, add nothing', async () => {
    const { session, tradeNo } = await paidDeletedPage('deleted-page-chargeback');
    const raised = (await sandboxControl('chargebacks', {
      tradeNo,
      amount: '5.00',
      reason: 'D4837-No Cardholder Authorization',
    })) as { batchNo: string; replyDeadline: string };
    // Acknowledged once the notice's work is done: the alert, then the page's write.
    const [notice] = await waitFor(async () => {
      const list = await deliveriesOfBatch(raised.batchNo);
      return list.length > 0 && list.every((delivery) => delivery.state === 'delivered') && list;
    }, 'the chargeback notice to be acknowledged');
    expect(notice!.attempts.at(-1)?.response).toBe('success');
    const kept = [
      expect.objectContaining({
        batchNo: raised.batchNo,
        tradeNo,
        amount: '5.00',
        currency: 'USD',
        reason: 'D4837-No Cardholder Authorization',
        replyDeadline: raised.replyDeadline,
        receivedAt: expect.any(String),
      }),
    ];
    expect((await keptPage(session.id)).chargebacks).toEqual(kept);
    await serverLogSoFar();
    expect(pageChargebackAlerts(raised.batchNo)).toBe(1);
    expect(log()).toMatch(
      new RegExp(
        `CHARGEBACK ON UNAPPLIED PAYMENT: Chargeback ${raised.batchNo} of 5\\.00 USD on tradeNo ${tradeNo} \\(orderNo ${session.id}\\): D4837-No Cardholder Authorization\\. This payment was never applied to an order.*do NOT also refund it in the gateway's merchant portal.*by ${raised.replyDeadline}`,
      ),
    );
    // Not the plain CHARGEBACK alert, nor the warning about an orderNo of nothing.
    expect(log()).not.toContain(`CHARGEBACK: Chargeback ${raised.batchNo}`);
    expect(log()).not.toContain(`(batchNo ${raised.batchNo}): no payment session`);
    expect(await adminFeed()).toContain(`Chargeback ${raised.batchNo} of 5.00 USD`);

    const repeated = await redeliverAgain(notice!.id, raised.batchNo);
    expect(repeated.attempts.at(-1)?.response).toBe('success');
    expect((await reconcileNow({ orderNos: [session.id] })).body.chargebacks).toEqual([]);
    await serverLogSoFar();
    expect(pageChargebackAlerts(raised.batchNo)).toBe(1);
    expect((await keptPage(session.id)).chargebacks).toEqual(kept);
    expect(unappliedAlerts(session.id)).toBe(1);
  });

  it('a chargeback on such a page whose every notice was lost: the run keeps it on the page and reports it once (line `recorded`); a second run and the late notice add nothing', async () => {
    const { session, tradeNo } = await paidDeletedPage('deleted-page-chargeback-lost');
    await sandboxControl('chaos', { drop: true });
    const raised = (await sandboxControl('chargebacks', {
      tradeNo,
      reason: 'D4755-Non-Receipt of Goods or Services',
    })) as { batchNo: string; amount: string };
    const [lost] = await waitFor(async () => {
      const list = await deliveriesOfBatch(raised.batchNo);
      return list.length > 0 && list;
    }, 'the chargeback notice, kept by the sandbox');
    expect(lost!.state).toBe('dropped');
    expect((await keptPage(session.id)).chargebacks).toEqual([]);

    const run = await reconcileNow({ orderNos: [session.id] });
    expect(run.status).toBe(200);
    expect(run.body.chargebacks).toEqual([
      expect.objectContaining({
        orderNo: session.id,
        batchNo: raised.batchNo,
        result: 'recorded',
        reason: expect.stringMatching(/kept on the page of a payment session a cart change deleted/),
      }),
    ]);
    // The run answers once the alert and the page's write are done.
    expect((await keptPage(session.id)).chargebacks).toEqual([
      expect.objectContaining({ batchNo: raised.batchNo, tradeNo, amount: raised.amount, currency: 'USD' }),
    ]);
    await serverLogSoFar();
    expect(pageChargebackAlerts(raised.batchNo)).toBe(1);

    expect((await reconcileNow({ orderNos: [session.id] })).body.chargebacks).toEqual([]);
    const late = await redeliverLate(lost!.id, raised.batchNo);
    expect(late.attempts.at(-1)?.response).toBe('success');
    await serverLogSoFar();
    expect(pageChargebackAlerts(raised.batchNo)).toBe(1);
    expect((await keptPage(session.id)).chargebacks).toHaveLength(1);
    expect(log()).not.toContain(`CHARGEBACK: Chargeback ${raised.batchNo}`);
  });

  it('a page whose session a cart change deleted, not paid while asked: asked about while young, ended once expired, nothing reported; paid there after all, its callback reports it once', async () => {
    const { session } = await pageDeletedByCartChange('deleted-page-unpaid');
    // Young for certain, however slow the machine: the page's time is now.
    const keptAt = new Date().toISOString();
    await sql('update gatewaykit_deleted_page set attempted_at = $2 where order_no = $1', [
      session.id,
      keptAt,
    ]);
    const young = await reconcileNow({ orderNos: [session.id] });
    expect(young.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'none', status: 'redirect' }),
    ]);
    await pastNoRecordThreshold(keptAt);
    const old = await reconcileNow({ orderNos: [session.id] });
    expect(old.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'ended', status: 'failed' }),
    ]);
    expect(await keptPage(session.id)).toMatchObject({ ended_as: 'expired' });
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(unappliedAlerts(session.id)).toBe(0);

    // The gateway's page outlived the run's judgement: a payment there is still reported, and ends it.
    await sandboxControl('chaos', { noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    await waitFor(async () => unappliedAlerts(session.id) === 1, "the late payment's alert");
    // Marked right after the alert (alert first: a crash repeats it rather than losing it).
    await waitFor(
      async () => (await keptPage(session.id))?.ended_as === 'reported',
      'the page marked reported',
    );
  });

  it("a page whose session a cart change deleted, which the gateway's records do not settle while the run asks: reported PAGE NOT SETTLED once, for a person", async () => {
    const { session } = await pageDeletedByCartChange('deleted-page-unsettled');
    await sandboxControl('faults', { route: 'listTransactions', kind: '5xx', times: 'always' });
    const alerts = () => alertsLogged('PAGE NOT SETTLED', session.id);
    const asked = await reconcileNow({ orderNos: [session.id] });
    expect(asked.body.attempts).toEqual([expect.objectContaining({ orderNo: session.id, result: 'none' })]);
    // Two days of runs later.
    await sql(
      `update gatewaykit_deleted_page set deleted_at = now() - interval '3 days' where order_no = $1`,
      [session.id],
    );
    const last = await reconcileNow({ orderNos: [session.id] });
    expect(last.body.attempts).toEqual([
      expect.objectContaining({ orderNo: session.id, result: 'reported' }),
    ]);
    expect(last.body.attempts[0].reason).toMatch(/could not be read/);
    await waitFor(async () => alerts() === 1, 'the page-not-settled alert');
    expect(await keptPage(session.id)).toMatchObject({ ended_as: 'unsettled' });
    expect((await reconcileNow({ orderNos: [session.id] })).body.attempts).toEqual([]);
    await serverLogSoFar();
    expect(alerts()).toBe(1);
  });

  it("a refund whose notification was lost is settled from the gateway's record", async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 5);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    await sandboxControl('chaos', { drop: true });
    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' });
    await waitFor(async () => (await deliveriesOfBatch(gateway!.batchNo)).length > 0, 'the dropped notice');
    expect((await adminPayment(paid.paymentId)).data.refunds[0].status).toBe('pending');

    const { body } = await reconcileNow({ orderNos: [paid.orderNo] });
    expect(body.refunds).toEqual([
      expect.objectContaining({
        merTrackNo: refund.refundId,
        batchNo: gateway!.batchNo,
        status: 'succeeded',
      }),
    ]);
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refund.refundId, status: 'succeeded' }),
    ]);
  });

  it('a refund the gateway accepted and never settles is handed to the merchant once, past the look-back, even when its payment was last written before it (found by review)', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 5);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    // Sent 31 days ago, and its payment not written since.
    const sentAt = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000).toISOString();
    await sql(
      `UPDATE payment SET data = jsonb_set(data, '{refunds,0,requestedAt}', to_jsonb($2::text)),
              updated_at = now() - interval '31 days' WHERE id = $1`,
      [paid.paymentId, sentAt],
    );
    const said = () => log().split(`REFUND NOT SETTLED: Refund ${refund.refundId}`).length - 1;
    const lineOf = (body: Json) =>
      (body.refunds as Json[]).filter((line) => line.merTrackNo === refund.refundId);

    const first = await reconcileNow();
    expect(lineOf(first.body)).toEqual([
      expect.objectContaining({
        batchNo: gateway!.batchNo,
        status: 'pending',
        reason: expect.stringContaining('the merchant was told to look it up'),
      }),
    ]);
    await waitFor(async () => said() === 1, 'the REFUND NOT SETTLED alert');
    const second = await reconcileNow();
    expect(lineOf(second.body)).toEqual([expect.objectContaining({ status: 'pending' })]);
    await serverLogSoFar();
    expect(said()).toBe(1);

    // Settled at the gateway after all, its notice lost: the next run still reads it.
    await sandboxControl('chaos', { drop: true });
    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' });
    const third = await reconcileNow();
    expect(lineOf(third.body)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('a refund Medusa recorded whose payment data lost it (the process died while sending it): written back as unknown, and the merchant is told to look it up (found by review)', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 5);
    // What a crash between Medusa's refund row and the provider's answer leaves: the row, no entry.
    await sql(`UPDATE payment SET data = data - 'refunds' WHERE id = $1`, [paid.paymentId]);
    await sql(`UPDATE refund SET created_at = now() - interval '2 hours' WHERE id = $1`, [refund.refundId]);
    expect((await adminPayment(paid.paymentId)).data.refunds).toBeUndefined();

    const { body } = await reconcileNow({ orderNos: [paid.orderNo] });
    expect(body.refunds).toEqual([
      expect.objectContaining({
        merTrackNo: refund.refundId,
        status: 'unknown',
        reason: expect.stringContaining('the merchant was told to look it up'),
      }),
    ]);
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refund.refundId, status: 'unknown', amount: '5.00' }),
    ]);
    expect(await adminFeed()).toContain(`Look it up by merTrackNo ${refund.refundId}`);
    // Told once: the next run adds nothing.
    await reconcileNow({ orderNos: [paid.orderNo] });
    const told = (await adminFeed()).split(`Look it up by merTrackNo ${refund.refundId}`).length - 1;
    expect(told).toBe(1);
  });

  it('refuses a body it does not know, naming the field', async () => {
    expect((await reconcileNow({ orderNos: 'all' })).status).toBe(400);
    const unknown = await reconcileNow({ since: 'yesterday' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/since: not accepted here/);
  });
});

/**
 * Dates session `sessionId`'s charge or page now, so the run right after judges it young however slow
 * the machine was to get here (the threshold is FAIL_UNRECORDED_AFTER_SECONDS); the new time.
 */
async function youngAttempt(sessionId: string): Promise<string> {
  const now = new Date().toISOString();
  const rows = await sql(
    `update payment_session set data = jsonb_set(data, '{attemptedAt}', to_jsonb($2::text)) where id = $1 returning id`,
    [sessionId, now],
  );
  expect(rows).toHaveLength(1);
  return now;
}

/** Waits until a charge sent at `attemptedAt` is older than the store's no-record threshold. */
async function pastNoRecordThreshold(attemptedAt: string): Promise<void> {
  const ageMs = Date.now() - Date.parse(attemptedAt);
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, FAIL_UNRECORDED_AFTER_SECONDS * 1000 + 500 - ageMs)),
  );
}

/** The cart's payment collection id. */
async function collectionOf(cartId: string, token: string): Promise<string> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=*payment_collection`, { token }));
  return cart.payment_collection.id;
}
