import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import {
  CARDS,
  guestOnPaymentStep,
  payOnHostedPage,
  payWith,
  placedOrderReference,
  screenshot,
} from './support/shopper';

const browser = useBrowser();

describe.each(['medusa', 'vendure'] as const)('%s: guest pays on the hosted checkout page', (store) => {
  it('types the card on the sandbox page, comes back to a placed and paid order', async () => {
    const { page, email } = await guestOnPaymentStep(browser(), store, 'hosted');
    await payWith(page, 'pay-hosted');

    await payOnHostedPage(page, CARDS.success);
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-hosted-checkout`);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    expect(order.method).toMatch(/hosted/);
    await page.context().close();
  });
});
