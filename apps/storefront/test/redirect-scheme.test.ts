/**
 * The storefront follows a payment's redirect only to its own pages or an absolute http(s) address.
 * The address comes from the store's answer; core already refuses other redirectUrls, and this is the
 * storefront's own check on top. The store's answer is replaced in the browser to play a store that
 * let one through. The honest redirects are the other journeys: the sandbox's http page
 * (failed-return, hosted-checkout) and the storefront's own return page (card-decided-later).
 */
import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from './support/browser';
import { guestOnPaymentStep, payWith } from './support/shopper';

const browser = useBrowser();

describe('the redirect the storefront follows after Pay', () => {
  it('attack: a javascript:, data: or protocol-relative address is refused with an error, never opened', async () => {
    const { page } = await guestOnPaymentStep(browser(), 'vendure', 'bad-redirect');
    let url = '';
    await page.route('**/shop-api', async (route) => {
      if (!route.request().postData()?.includes('gatewaykitStartPayment')) return route.continue();
      await route.fulfill({
        json: {
          data: { gatewaykitStartPayment: { __typename: 'GatewaykitPaymentRedirect', url, orderNo: 'x' } },
        },
      });
    });
    for (url of [
      "javascript:document.title='followed'",
      'data:text/html,<h1>Call 1-800-555-0100</h1>',
      '//evil.example/pay',
    ]) {
      await payWith(page, 'pay-hosted');
      const error = page.getByTestId('payment-error');
      await error.getByText(/payment page address .* not valid/i).waitFor({ timeout: 10_000 });
      expect(await page.title(), url).not.toBe('followed');
      expect(page.url(), url).toContain(`${inject('storefrontUrl')}/checkout/payment`);
      // The next Pay starts clean.
      await page.evaluate(() => {
        const slot = document.querySelector('[data-testid="payment-error"]');
        if (slot) slot.textContent = '';
      });
    }
    await page.context().close();
  });
});
