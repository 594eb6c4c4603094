/**
 * Links to the store's own pages must not put someone else's words on them: `?retry=` carries a reason
 * code that the payment page maps to fixed texts, and the return page does not echo the order code
 * from its path. (Escaped, so not script; but "Call 1-800-…" on the store's origin is phishing.)
 */
import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from './support/browser';
import { guestOnPaymentStep, openStore } from './support/shopper';

const browser = useBrowser();
const LURE = 'Call 1-800-555-0100 to unlock your card';

describe('attacker text in links to the storefront', () => {
  it('attack: ?retry= text is never shown; a known reason code shows its fixed words', async () => {
    const { page } = await guestOnPaymentStep(browser(), 'medusa', 'retry-text');
    const storefront = inject('storefrontUrl');
    await page.goto(`${storefront}/checkout/payment?store=medusa&retry=${encodeURIComponent(LURE)}`);
    const notice = page.getByTestId('retry-reason');
    await notice.waitFor();
    expect(await notice.textContent()).not.toContain('1-800');
    expect(await notice.textContent()).toMatch(/did not go through/i);

    await page.goto(`${storefront}/checkout/payment?store=medusa&retry=declined`);
    await page
      .getByTestId('retry-reason')
      .getByText(/declined by the bank/i)
      .waitFor();
    await page.context().close();
  });

  it('attack: the order code in a return link is not echoed on the page', async () => {
    const page = await openStore(browser(), 'vendure');
    // Vendure refuses an unknown code to a guest outright; a store answering "no such order" is played
    // here, the answer in which the storefront used to name the code.
    await page.route('**/shop-api', async (route) => {
      if (!route.request().postData()?.includes('orderByCode')) return route.continue();
      await route.fulfill({ json: { data: { orderByCode: null } } });
    });
    const code = encodeURIComponent(LURE.replaceAll(' ', '-'));
    await page.goto(`${inject('storefrontUrl')}/order/${code}?store=vendure&payment=failed`);
    const reason = page.getByTestId('failure-reason');
    await reason.waitFor();
    expect(await reason.textContent()).not.toContain('1-800');
    expect(await page.locator('main, body').first().textContent()).not.toContain('1-800');
    await page.context().close();
  });
});
