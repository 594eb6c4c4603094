/**
 * A cart is placed only for what was paid (docs/SECURITY.md §5). `POST /store/carts/:id/taxes`
 * recalculates the cart's taxes without refreshing its payment collection, so a payment session made
 * before keeps the old total: the card charges it, the gateway's page asks for it. Here a tax rate for
 * the cart's own province is added after the session was made (each test its own province, so no other
 * cart is taxed).
 */
import { describe, expect, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { CARD, complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { uniqueEmail } from './support/email';
import { ordersOf } from './support/orders';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';
import { serverLog, serverLogSoFar } from './support/server-log';
import { postTransactionCallback } from './support/signed-callback';
import { api, expectOk } from './support/store-api';
import { waitFor } from './support/wait';

/** Taxes US province `province` at 10 % from now on (a tax region of its own under the US one). */
async function taxProvince(province: string): Promise<void> {
  const token = await adminTokenFor();
  const { tax_regions } = await expectOk(
    api('GET', '/admin/tax-regions?country_code=us&limit=100', { token }),
  );
  const us = tax_regions.find((region: { province_code?: string | null }) => !region.province_code);
  await expectOk(
    api('POST', '/admin/tax-regions', {
      token,
      body: {
        country_code: 'us',
        province_code: province,
        parent_id: us.id,
        default_tax_rate: { rate: 10, code: province, name: `${province} test tax` },
      },
    }),
  );
}

async function recalculateTaxes(cartId: string, token?: string) {
  return api('POST', `/store/carts/${cartId}/taxes`, { token });
}

async function cartTotal(cartId: string, token?: string): Promise<number> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=total`, { token }));
  return Number(cart.total);
}

const log = serverLog;

/**
 * A registered shopper's cart in US province `province` with a saved-card session, then taxed through
 * the taxes route (which leaves the session at the old total).
 */
async function taxedAfterCardSession(province: string) {
  const { token, email } = await registerCustomer();
  const card = await saveCard(token, CARDS.success);
  const { cartId, collectionId, total } = await readyCart({ token, email, province });
  await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
  await taxProvince(province);
  expect((await recalculateTaxes(cartId, token)).status).toBe(200);
  const taxed = await cartTotal(cartId, token);
  expect(taxed).toBeGreaterThan(total);
  return { token, email, card, cartId, collectionId, total, taxed };
}

describe('a cart whose total rose after its payment session was made', () => {
  it('a new payment session for the new total completes the cart at that total', async () => {
    const { token, card, cartId, collectionId, taxed } = await taxedAfterCardSession('us-wa');

    // The taxes route left the payment collection at the old total: a new session takes the cart's.
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    expect(Number(session.data.amount)).toBe(taxed);
    const completed = await complete(cartId, token);
    expect(completed.status).toBe(200);
    const order = await adminOrder(completed.body.order.id);
    expect(Number(order.total)).toBe(taxed);
    expect(Number(order.payment_collections[0].payments[0].amount)).toBe(taxed);
  });

  it('a gateway page opened after the taxes route asks for the taxed total, and its payment places the order at it (found by review)', async () => {
    const email = uniqueEmail('taxes-then-page');
    const { cartId, collectionId, total } = await readyCart({ email, province: 'us-ut' });
    await taxProvince('us-ut');
    expect((await recalculateTaxes(cartId)).status).toBe(200);
    const taxed = await cartTotal(cartId);
    expect(taxed).toBeGreaterThan(total);

    const session = await startSession(collectionId, HOSTED);
    expect(Number(session.data.amount)).toBe(taxed);
    await followReturn(await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success));
    const completed = await complete(cartId);
    expect(completed.status).toBe(200);
    const order = await adminOrder(completed.body.order.id);
    expect(Number(order.total)).toBe(taxed);
    expect(Number(order.payment_collections[0].payments[0].amount)).toBe(taxed);
    expect(log()).not.toContain(`PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`);
  });

  it('attack: completing with the card session of the old total is refused, naming both amounts, and nothing is charged', async () => {
    const { token, email, cartId, total, taxed } = await taxedAfterCardSession('us-or');

    const completed = await complete(cartId, token);
    expect(completed.status).toBe(400);
    expect(completed.body.message).toContain(`${taxed.toFixed(2)} USD`);
    expect(completed.body.message).toContain(`${total.toFixed(2)} USD`);
    expect(completed.body.message).toMatch(/create the payment session again/);
    expect(await ordersOf(email)).toEqual([]);
    const session = await currentSession(cartId, token);
    expect(session.data.attemptedAt).toBeUndefined();
  });

  it("attack: recalculating the taxes while the shopper's gateway page asks for the old total is refused; the page's payment places the order at that total", async () => {
    const email = uniqueEmail('taxes-page');
    const { cartId, collectionId, total } = await readyCart({ email, province: 'us-nv' });
    const session = await startSession(collectionId, HOSTED);
    await taxProvince('us-nv');

    const refused = await recalculateTaxes(cartId);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(session.id);
    expect(refused.body.message).toMatch(/gateway page/);
    expect(await cartTotal(cartId)).toBe(total);

    // The page is paid for the total it shows, and the order is placed at that total.
    await followReturn(await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success));
    const completed = await complete(cartId);
    expect(completed.status).toBe(200);
    expect(Number((await adminOrder(completed.body.order.id)).total)).toBe(total);
  });

  it('attack: the taxes route is refused while a declined gateway page may still be paid (the shopper may try another card there) (found by review)', async () => {
    const { cartId, collectionId, total } = await readyCart({
      email: uniqueEmail('declined-page'),
      province: 'us-id',
    });
    const session = await startSession(collectionId, HOSTED);
    await followReturn(await finishHostedPage(session.data.redirectUrl, 'fail'));
    await taxProvince('us-id');
    const refused = await recalculateTaxes(cartId);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(session.id);
    expect(await cartTotal(cartId)).toBe(total);
  });

  it('attack: a cart whose total changed while its gateway page was open is not completed by the payment made there; the merchant is told both amounts', async () => {
    const email = uniqueEmail('total-moved');
    const { cartId, collectionId, total } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    // Any change that leaves the page's session in place (the taxes route before it was refused, a
    // store's own route): one more of the item, written straight to the cart.
    await sql('update cart_line_item set quantity = quantity + 1 where cart_id = $1', [cartId]);
    const moved = await cartTotal(cartId);
    expect(moved).toBeGreaterThan(total);

    // The callback first; the shopper's return comes after it.
    const returnLocation = await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success);
    const alert = `PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`;
    await waitFor(async () => log().includes(alert), 'the paid-but-not-applied alert');
    const line = log()
      .split('\n')
      .find((entry) => entry.includes(alert));
    expect(line).toContain(`${moved.toFixed(2)} USD`);
    expect(line).toContain(`${total.toFixed(2)} USD`);
    expect(await ordersOf(email)).toEqual([]);

    // Nor does the return (a repeated success) or the shopper's own completion place it.
    await followReturn(returnLocation);
    expect(await ordersOf(email)).toEqual([]);
    const completed = await complete(cartId);
    expect(completed.status).toBe(400);
    expect(await ordersOf(email)).toEqual([]);
  });

  it('a success whose amount the gateway writes another way (no trailing zeros, a leading zero) places the order, with no alert', async () => {
    const email = uniqueEmail('amount-spelling');
    const { collectionId, total } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    expect(session.data.amount).toBe(total.toFixed(2));
    // 60.00 written `060`, 59.99 written `059.99`: the same value, other text.
    const spelled = `0${Number(total)}`;
    const answer = await postTransactionCallback(
      { id: session.id, data: { ...session.data, amount: spelled } },
      { status: 'success', tradeNo: `T${session.id.slice(-12)}`, orderInfo: 'Approved' },
    );
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    const order = await waitFor(async () => {
      const [placed] = await ordersOf(email);
      return placed?.payment_status === 'captured' && placed;
    }, 'the order paid by the callback');
    expect(Number((await adminOrder(order.id)).total)).toBe(total);
    expect(await ordersOf(email)).toHaveLength(1);
    expect(await serverLogSoFar()).not.toContain(
      `PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`,
    );
  });
});
