import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { inject } from 'vitest';
import { evidenceDir, keepResponseEvidence } from '../../../medusa-store/scripts/evidence';
import { STOREFRONT_ROOT } from '../../server/serve';

import type { StoreName } from './cards';
import { fillDetailsToPayment, payOnSandboxCardPage } from './page-steps';
import { keepPageTrail } from './page-trail';

export { CARDS, type StoreName } from './cards';

const ARTIFACTS = join(STOREFRONT_ROOT, 'test-artifacts');

/** A fresh browser context (own localStorage: no cart, not logged in) on the chosen store. */
export async function openStore(browser: Browser, store: StoreName): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  if (evidenceDir()) {
    // What the stores answered the browser (through the storefront's proxy, or directly) is part of
    // what CI scans for card data.
    const storeApis = [
      `${inject('storefrontUrl')}/medusa-api`,
      `${inject('storefrontUrl')}/vendure-api`,
      inject('medusaUrl'),
      inject('vendureUrl'),
      // What the gateway's card element (its iframe) was answered when it made a payment method.
      `${inject('sandboxUrl')}/V2022-03/element/`,
    ];
    context.on('response', (response) => {
      if (!storeApis.some((url) => response.url().startsWith(url))) return;
      response.text().then(
        (body) => keepResponseEvidence(response.url(), body),
        () => undefined,
      );
    });
  }
  const page = await context.newPage();
  keepPageTrail(page, `a ${store} shopper`);
  await page.goto(`${inject('storefrontUrl')}/?store=${store}`);
  await page.getByTestId('product').first().waitFor();
  return page;
}

export async function addFirstProduct(page: Page): Promise<void> {
  const product = page.getByTestId('product').first();
  await product.getByRole('button', { name: 'Add to cart' }).click();
  await product.getByText(/Added\./).waitFor();
}

/** Cart → checkout form → shipping → payment page. */
export async function checkoutToPayment(page: Page, email?: string): Promise<void> {
  await page.getByTestId('nav-cart').click();
  await page.getByTestId('go-checkout').click();
  await fillDetailsToPayment(page, email);
}

/** On the sandbox's card page: types the card and presses the pay button. */
export async function payOnHostedPage(page: Page, cardNo: string): Promise<void> {
  await payOnSandboxCardPage(page, inject('sandboxUrl'), cardNo);
}

/** On a sandbox page with only outcome buttons (3-D Secure challenge, local method). */
export async function completeSandboxPage(page: Page, heading: RegExp): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(inject('sandboxUrl')));
  await page.getByRole('heading', { name: heading }).waitFor();
  await page.getByRole('button', { name: 'Pay / complete' }).click();
}

/** Waits for the confirmation and returns the order reference the storefront shows. */
export async function placedOrderReference(page: Page): Promise<string> {
  await page.getByTestId('order-placed').waitFor({ timeout: 60_000 });
  return (await page.getByTestId('order-reference').textContent())!.trim();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
}

/** Creates an account through the storefront's register form and stays logged in. */
export async function registerInBrowser(page: Page, email: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: 'Log in' }).click();
  const form = page.locator('#register');
  await form.getByLabel('First name').fill('Grace');
  await form.getByLabel('Last name').fill('Hopper');
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill('correct-horse-battery');
  await form.getByRole('button', { name: 'Register' }).click();
  await page.getByTestId('logged-in-as').getByText(email).waitFor();
}

/**
 * Types a card into the gateway's card element (the sandbox's iframe inside the payment page): the
 * card option, "A new card" when saved cards are listed, then the iframe's fields.
 */
export async function typeCardInElement(page: Page, cardNo: string): Promise<void> {
  await page.getByTestId('pay-card').check();
  const newCard = page.getByTestId('new-card');
  if ((await newCard.count()) > 0) await newCard.check();
  await elementReady(page);
  const frame = page.frameLocator('#card-element-frame');
  await frame.getByLabel(/card number/i).fill(cardNo);
  await frame.getByLabel(/expiry/i).fill(`12/${String(new Date().getFullYear() + 2).slice(-2)}`);
  await frame.getByLabel(/cvc/i).fill('123');
}

/** Waits until the element is mounted (token fetched, SDK loaded, iframe inserted). */
export async function elementReady(page: Page): Promise<void> {
  await page.locator('[data-testid="card-element"][data-ready="true"]').waitFor({ timeout: 30_000 });
  await page
    .frameLocator('#card-element-frame')
    .getByLabel(/card number/i)
    .waitFor();
}

/** A shopper with the first product in the cart, on the payment step: where most journeys start. */
async function shopperOnPaymentStep(
  browser: Browser,
  store: StoreName,
  label: string,
  register: boolean,
): Promise<{ page: Page; email: string }> {
  const email = uniqueEmail(`${label}-${store}`);
  const page = await openStore(browser, store);
  if (register) {
    await registerInBrowser(page, email);
    await page.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
  }
  await addFirstProduct(page);
  // A registered shopper's email is already known to the store.
  await checkoutToPayment(page, register ? undefined : email);
  return { page, email };
}

export const guestOnPaymentStep = (browser: Browser, store: StoreName, label: string) =>
  shopperOnPaymentStep(browser, store, label, false);

/** Typed cards need an account on Medusa (it takes them only by saving them on the customer). */
export const registeredShopperAtPayment = (browser: Browser, store: StoreName, label: string) =>
  shopperOnPaymentStep(browser, store, label, true);

/** Chooses a payment option by its test id and presses Pay. */
export async function payWith(page: Page, choiceTestId: string): Promise<void> {
  await page.getByTestId(choiceTestId).check();
  await page.getByTestId('pay').click();
}
