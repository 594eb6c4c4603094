import { describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import {
  CARDS,
  guestOnPaymentStep,
  placedOrderReference,
  screenshot,
  typeCardInElement,
} from './support/shopper';

const browser = useBrowser();

describe.each(['medusa', 'vendure'] as const)(
  '%s: declined card in the card element, then another card',
  (store) => {
    it('shows the decline in words, keeps the cart, and the second card places the order', async () => {
      const { page, email } = await guestOnPaymentStep(browser(), store, 'decline');
      const visited: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) visited.push(frame.url());
      });

      await typeCardInElement(page, CARDS.decline);
      await page.getByTestId('pay').click();
      const error = page.getByTestId('payment-error');
      await error.getByText(/declined/i).waitFor();
      expect(await error.textContent()).toContain('Try another card');
      // The element is mounted again with empty fields, so nothing of the refused card stays on the page.
      await page.locator('[data-testid="card-element"][data-ready="true"]').waitFor();
      expect(
        await page
          .frameLocator('#card-element-frame')
          .getByLabel(/card number/i)
          .inputValue(),
      ).toBe('');

      await typeCardInElement(page, CARDS.success);
      await page.getByTestId('pay').click();
      const reference = await placedOrderReference(page);
      await screenshot(page, `${store}-decline-then-retry`);

      // Paid in place through the element: the page never left the storefront for the gateway.
      expect(visited.filter((url) => url.startsWith(inject('sandboxUrl')))).toEqual([]);

      const order = await adminOrder(store, reference);
      expect(order.email).toBe(email);
      expect(order.paid).toBe(true);
      if (store === 'vendure')
        expect(order.payments.map((payment) => payment.state).sort()).toEqual(['Declined', 'Settled']);
      await page.context().close();
    });
  },
);
