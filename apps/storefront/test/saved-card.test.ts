import { describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import { CARD_METHOD } from './support/cards';
import {
  addFirstProduct,
  CARDS,
  checkoutToPayment,
  openStore,
  placedOrderReference,
  registerInBrowser,
  screenshot,
  uniqueEmail,
} from './support/shopper';

const browser = useBrowser();

describe.each(['medusa', 'vendure'] as const)('%s: logged-in customer pays with a saved card', (store) => {
  it('saves a card under "my saved cards", then checks out with it without leaving the store', async () => {
    const email = uniqueEmail(`saved-${store}`);
    const page = await openStore(browser(), store);
    await registerInBrowser(page, email);

    await page.getByRole('navigation').getByRole('link', { name: 'My saved cards' }).click();
    const form = page.locator('#add-card');
    await form.getByLabel('Card number').fill(CARDS.success);
    await form.getByLabel('Expiry month (MM)').fill('12');
    await form.getByLabel('Expiry year (YYYY)').fill(String(new Date().getFullYear() + 3));
    await form.getByLabel('Security code').fill('123');
    await form.getByLabel('Street and number').fill('1 Analytical Way');
    await form.getByLabel('City').fill('London');
    await form.getByLabel('Postal code').fill('N1 1AA');
    await form.getByLabel('Country').selectOption('GB');
    await form.getByRole('button', { name: 'Save card' }).click();
    await page
      .getByTestId('saved-cards')
      .getByText(/ending 4242/)
      .waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
    await addFirstProduct(page);
    await checkoutToPayment(page);
    await page.getByTestId('pay-card').check();
    await page.getByLabel(/ending 4242/).check();
    const visited: string[] = [];
    page.on('framenavigated', (frame) => visited.push(frame.url()));
    await page.getByTestId('pay').click();
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-saved-card`);
    // Paid in place: the shopper never saw a gateway page.
    expect(visited.filter((url) => url.startsWith(inject('sandboxUrl')))).toEqual([]);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    expect(order.method).toBe(CARD_METHOD[store]);
    await page.context().close();
  });
});
