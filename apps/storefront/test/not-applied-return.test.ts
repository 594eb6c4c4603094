/**
 * The Vendure store's return route sends `payment=not_applied` for a charge it could not add to the
 * order (docs/storefront-return-page.md): the return page must say so once, with fixed words, and
 * neither wait for a paid order nor offer to pay again.
 */
import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from './support/browser';
import { guestOnPaymentStep } from './support/shopper';

const browser = useBrowser();

describe('the return page for a payment the store could not apply', () => {
  it('says the payment was received and not applied, offers no second payment, and does not wait', async () => {
    const { page } = await guestOnPaymentStep(browser(), 'vendure', 'not-applied');
    // The browser's own active order (the storefront keeps the Vendure session token).
    const code = await page.evaluate(
      async (shopApi) => {
        const token = localStorage.getItem('gatewaykit.vendure.token') ?? '';
        const response = await fetch(shopApi, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: '{ activeOrder { code } }' }),
        });
        return ((await response.json()) as { data: { activeOrder: { code: string } } }).data.activeOrder.code;
      },
      `${inject('vendureUrl')}/shop-api`,
    );
    await page.goto(`${inject('storefrontUrl')}/order/${code}?store=vendure&payment=not_applied`);
    const notice = page.getByTestId('payment-not-applied');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/do not pay again/i);
    expect(await page.getByTestId('try-again').count()).toBe(0);
    await page.context().close();
  });
});
