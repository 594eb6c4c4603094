import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import {
  completeSandboxPage,
  guestOnPaymentStep,
  payWith,
  placedOrderReference,
  screenshot,
} from './support/shopper';

const browser = useBrowser();

// Medusa lets the storefront pick any of the gateway's methods; the Vendure demo enables Alipay.
const METHOD = { medusa: 'klarna', vendure: 'alipay' } as const;

describe.each(['medusa', 'vendure'] as const)('%s: guest pays with a local method', (store) => {
  it("finishes on the method's sandbox page and comes back to a paid order", async () => {
    const { page, email } = await guestOnPaymentStep(browser(), store, 'local');
    await payWith(page, `pay-local-${METHOD[store]}`);

    await completeSandboxPage(page, new RegExp(`${METHOD[store]} payment`, 'i'));
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-local-payment`);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    expect(order.method).toMatch(/local/);
    await page.context().close();
  });
});
