/**
 * Shopper steps on storefront and sandbox pages that need no test runner, so the browser tests and the
 * README screenshot script drive the pages the same way.
 */
import type { Page } from 'playwright-core';

/** On the checkout page: fills the delivery details, picks shipping and arrives at the payment step. */
export async function fillDetailsToPayment(page: Page, email?: string): Promise<void> {
  const details = page.locator('#details');
  await details.waitFor();
  if (email !== undefined) await details.getByLabel('Email').fill(email);
  await details.getByLabel('First name').fill('Ada');
  await details.getByLabel('Last name').fill('Lovelace');
  await details.getByLabel('Street and number').fill('1 Analytical Way');
  await details.getByLabel('City').fill('London');
  await details.getByLabel('Postal code').fill('N1 1AA');
  await details.getByLabel('Country').selectOption('GB');
  await details.getByRole('button', { name: 'Continue to shipping' }).click();
  await page.getByRole('button', { name: 'Continue to payment' }).click();
  await page.getByTestId('pay').waitFor();
}

/** On the sandbox's card page (served by `sandboxUrl`): types the card and presses the pay button. */
export async function payOnSandboxCardPage(page: Page, sandboxUrl: string, cardNo: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(sandboxUrl));
  await page.getByLabel('Card number').fill(cardNo);
  await page.getByLabel('Security code').fill('123');
  await page.getByRole('button', { name: 'Pay / complete' }).click();
}
