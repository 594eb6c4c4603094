import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import {
  CARDS,
  placedOrderReference,
  registeredShopperAtPayment,
  screenshot,
  typeCard,
} from './support/shopper';

const browser = useBrowser();

describe.each(['medusa', 'vendure'] as const)('%s: declined card, then another card', (store) => {
  it('shows the decline in words, keeps the cart, and the second card places the order', async () => {
    const { page, email } = await registeredShopperAtPayment(browser(), store, 'decline');

    await typeCard(page, CARDS.decline);
    await page.getByTestId('pay').click();
    const error = page.getByTestId('payment-error');
    await error.getByText(/declined/i).waitFor();
    expect(await error.textContent()).toContain('Try another card');
    // The refused number is cleared from the form, so nothing of it stays on the page.
    expect(await page.getByLabel('Card number').inputValue()).toBe('');

    await typeCard(page, CARDS.success);
    await page.getByTestId('pay').click();
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-decline-then-retry`);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    if (store === 'vendure')
      expect(order.payments.map((payment) => payment.state).sort()).toEqual(['Declined', 'Settled']);
    await page.context().close();
  });
});
