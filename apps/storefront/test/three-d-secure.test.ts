import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import { CARD_METHOD } from './support/cards';
import {
  addFirstProduct,
  CARDS,
  checkoutToPayment,
  completeSandboxPage,
  openStore,
  placedOrderReference,
  registerInBrowser,
  screenshot,
  typeCard,
  uniqueEmail,
} from './support/shopper';

const browser = useBrowser();

// Logged in on both stores: Medusa takes typed cards only by saving them on the customer's account.
describe.each(['medusa', 'vendure'] as const)('%s: card with a 3-D Secure challenge', (store) => {
  it('sends the shopper to the challenge page and places the order after it passes', async () => {
    const email = uniqueEmail(`3ds-${store}`);
    const page = await openStore(browser(), store);
    await registerInBrowser(page, email);
    await page.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
    await addFirstProduct(page);
    await checkoutToPayment(page);
    await typeCard(page, CARDS.challenge);
    await page.getByTestId('pay').click();

    await completeSandboxPage(page, /3-D Secure challenge/);
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-three-d-secure`);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    expect(order.method).toBe(CARD_METHOD[store]);
    await page.context().close();
  });
});
