import { describe, expect, inject, it } from 'vitest';
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

describe.each(['medusa', 'vendure'] as const)('%s: payment fails on the gateway page', (store) => {
  it('comes back to the reason in words and a "try again" that leads to a paid order', async () => {
    const { page, email } = await guestOnPaymentStep(browser(), store, 'failed');
    await payWith(page, 'pay-hosted');

    // The declined test card typed on the gateway's own page.
    await payOnHostedPage(page, CARDS.decline);
    await page.getByTestId('payment-failed').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('failure-reason').textContent()).toMatch(/declined by the bank/i);
    await screenshot(page, `${store}-failed-return`);

    // The link carries a reason code, not the store's text; the payment page maps it to fixed words.
    expect(await page.getByTestId('try-again').getAttribute('href')).toContain('retry=declined');
    await page.getByTestId('try-again').click();
    await page
      .getByTestId('retry-reason')
      .getByText(/declined by the bank/i)
      .waitFor();
    await page.getByTestId('pay-hosted').check();
    await page.getByTestId('pay').click();
    await page.waitForURL((url) => url.href.startsWith(inject('sandboxUrl')));
    await payOnHostedPage(page, CARDS.success);
    const reference = await placedOrderReference(page);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    await page.context().close();
  });
});
