/**
 * README screenshots from a running `npm run demo`: the storefront's payment page (Vendure, guest)
 * after one hosted checkout on Medusa, the gateway's card element on that page (docs/card-element.md),
 * and the sandbox dashboard showing that payment.
 * Usage: npm run screenshots -w apps/storefront (demo URLs via DEMO_STOREFRONT_URL / DEMO_SANDBOX_URL).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@gatewaykit/cluster-testing';
import { CARDS, type StoreName } from '../test/support/cards';
import { fillDetailsToPayment, payOnSandboxCardPage } from '../test/support/page-steps';

const storefront = process.env['DEMO_STOREFRONT_URL'] ?? 'http://127.0.0.1:8000';
const sandbox = process.env['DEMO_SANDBOX_URL'] ?? 'http://127.0.0.1:8600';
const out = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const images = fileURLToPath(new URL('../../../docs/images/', import.meta.url));

const browser = await launchChromium();
try {
  mkdirSync(out, { recursive: true });
  mkdirSync(images, { recursive: true });
  const page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
  const toPayment = async (store: StoreName) => {
    await page.goto(`${storefront}/?store=${store}`);
    const product = page.getByTestId('product').first();
    await product.getByRole('button', { name: 'Add to cart' }).click();
    await product.getByText(/Added\./).waitFor();
    await page.goto(`${storefront}/checkout?store=${store}`);
    await fillDetailsToPayment(page, 'ada@example.com');
  };
  await toPayment('medusa');
  await page.getByTestId('pay-hosted').check();
  await page.getByTestId('pay').click();
  await payOnSandboxCardPage(page, sandbox, CARDS.success);
  await page.getByTestId('order-placed').waitFor({ timeout: 60_000 });

  await toPayment('vendure');
  await page.getByTestId('pay-card').check();
  // The card fields are the gateway's iframe, mounted once the store handed over a session token.
  await page.locator('[data-testid="card-element"][data-ready="true"]').waitFor({ timeout: 30_000 });
  const frame = page.frameLocator('#card-element-frame');
  await frame.getByLabel(/card number/i).fill(CARDS.success);
  await frame.getByLabel(/expiry/i).fill(`12/${String(new Date().getFullYear() + 2).slice(-2)}`);
  await frame.getByLabel(/cvc/i).fill('123');
  await page.screenshot({ path: `${out}storefront.png` });
  await page.locator('#payment').screenshot({ path: `${images}card-element.png` });
  await page.goto(`${sandbox}/`);
  await page.screenshot({ path: `${out}sandbox-dashboard.png` });
  console.log(`screenshots written to ${out}`);
} finally {
  await browser.close();
}
