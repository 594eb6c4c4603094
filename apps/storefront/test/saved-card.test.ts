import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { STOREFRONT_ROOT } from '../server/serve';
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
  typeCardInElement,
  uniqueEmail,
} from './support/shopper';

const browser = useBrowser();

describe.each(['medusa', 'vendure'] as const)(
  '%s: logged-in customer saves a card with the element',
  (store) => {
    it('ticks "Save this card" on the first order, then pays the next one with the saved card', async () => {
      const email = uniqueEmail(`saved-${store}`);
      const page = await openStore(browser(), store);
      await registerInBrowser(page, email);

      // First order: a new card in the gateway's card element, kept for next time.
      await page.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
      await addFirstProduct(page);
      await checkoutToPayment(page);
      await typeCardInElement(page, CARDS.success);
      await page.getByTestId('save-card').check();
      // The payment form with the element and "Save this card": docs/images/card-element.png comes from this.
      await page
        .locator('#payment')
        .screenshot({ path: join(STOREFRONT_ROOT, 'test-artifacts', `${store}-card-element-save.png`) });
      await page.getByTestId('pay').click();
      const first = await placedOrderReference(page);

      await page.getByRole('navigation').getByRole('link', { name: 'My saved cards' }).click();
      await page
        .getByTestId('saved-cards')
        .getByText(/ending 4242/)
        .waitFor();

      // Second order: the saved card is offered first; no card is typed and no gateway page is seen.
      await page.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
      await addFirstProduct(page);
      await checkoutToPayment(page);
      await page.getByTestId('pay-card').check();
      const saved = page.getByLabel(/ending 4242/);
      expect(await saved.isChecked()).toBe(true);
      const visited: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) visited.push(frame.url());
      });
      await page.getByTestId('pay').click();
      const second = await placedOrderReference(page);
      await screenshot(page, `${store}-saved-card`);
      expect(second).not.toBe(first);
      expect(visited.filter((url) => url.startsWith(inject('sandboxUrl')))).toEqual([]);

      for (const reference of [first, second]) {
        const order = await adminOrder(store, reference);
        expect(order.email).toBe(email);
        expect(order.paid).toBe(true);
        expect(order.method).toBe(CARD_METHOD[store]);
      }
      await page.context().close();
    });
  },
);
