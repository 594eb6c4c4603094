import { describe, expect, it } from 'vitest';
import { CARD, complete, HOSTED, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';
import { serverLogSoFar } from './support/server-log';
import { api } from './support/store-api';

const PANS = Object.values(CARDS);

describe('card data safety (docs/safety-rules.md#card-data)', () => {
  it('a storefront sending card data in session data gets an error and nothing is stored', async () => {
    const { collectionId } = await readyCart();
    const response = await api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
      body: { provider_id: CARD, data: { cardNo: CARDS.success, cardSecurityCode: '123' } },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).not.toContain(CARDS.success);
  });

  it('no card number or security code in sessions, payments, account holders or the server log', async () => {
    // Exercise every path that sees a card: save, charge, hosted page.
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.success);
    const saved = await readyCart({ token, email });
    await startSession(saved.collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    expect((await complete(saved.cartId, token)).status).toBe(200);
    const hosted = await readyCart();
    const session = await startSession(hosted.collectionId, HOSTED);
    await followReturn(await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success));

    const rows = await sql<{ text: string }>(
      `SELECT data::text AS text FROM payment_session
       UNION ALL SELECT data::text FROM payment
       UNION ALL SELECT data::text FROM account_holder`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const stored = rows.map((row) => row.text).join('\n');
    for (const pan of PANS) expect(stored).not.toContain(pan);
    expect(stored).not.toMatch(/"(cardSecurityCode|cvc|cvv)"/);
    expect(stored).not.toContain('medusa-store-test-sign-key');

    const log = await serverLogSoFar();
    for (const pan of PANS) expect(log).not.toContain(pan);
  });
});
