import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from './support/browser';
import { fillDetailsToPayment } from './support/page-steps';
import {
  addFirstProduct,
  CARDS,
  guestOnPaymentStep,
  openStore,
  payOnHostedPage,
  payWith,
  placedOrderReference,
  uniqueEmail,
} from './support/shopper';

const browser = useBrowser();

// The storefront's own storage keys (src/stores/medusa.ts).
const CART_KEY = 'gatewaykit.medusa.cart';
const TOKEN_KEY = 'gatewaykit.medusa.token';

// biome-ignore lint/suspicious/noExplicitAny: Store API JSON, read field by field.
type Json = Record<string, any>;

/** The cart this browser keeps (what every later cart request of the storefront uses). */
function storedCart(page: Page): Promise<string | null> {
  return page.evaluate((key) => localStorage.getItem(key), CART_KEY);
}

/** A cart as the Medusa Store API shows it (a cart id is all it takes); `token` for a customer's cart. */
async function storeCart(id: string, token?: string | null): Promise<Json> {
  const response = await fetch(
    `${inject('medusaUrl')}/store/carts/${encodeURIComponent(id)}?fields=id,email,customer.id,customer.email,*items,*shipping_address`,
    {
      headers: {
        'x-publishable-api-key': inject('publishableKey'),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    },
  );
  if (!response.ok) throw new Error(`Medusa cart ${id}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { cart: Json }).cart;
}

const quantity = (cart: Json): number =>
  ((cart.items ?? []) as Json[]).reduce((sum, item) => sum + Number(item.quantity), 0);

/** The return link the store's return route would build for cart `cartId`. */
const returnLink = (cartId: string): string =>
  `${inject('storefrontUrl')}/checkout/return?store=medusa&cart_id=${encodeURIComponent(cartId)}`;

/** Opens a return link and waits until the return page has decided what to show (any state). */
async function openReturnLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page
    .getByTestId('return-elsewhere')
    .or(page.getByTestId('order-placed'))
    .or(page.getByTestId('payment-failed'))
    .or(page.getByTestId('page-error'))
    .or(page.getByText(/Waiting for the gateway/))
    .first()
    .waitFor({ timeout: 30_000 });
}

describe('medusa: a return link never hands this browser another cart', () => {
  it('a shopper with a cart opens a link naming another cart: their cart, items, details and login stay theirs', async () => {
    // The attacker's cart (made in the attacker's own browser, one item in it): its id is the bearer token.
    const attacker = await openStore(browser(), 'medusa');
    await addFirstProduct(attacker);
    const attackerCart = (await storedCart(attacker))!;
    expect(attackerCart).toMatch(/^cart_/);
    await attacker.context().close();
    const before = await storeCart(attackerCart);

    // The victim has a cart of their own, then opens the attacker's return link.
    const victim = await openStore(browser(), 'medusa');
    await addFirstProduct(victim);
    const victimCart = (await storedCart(victim))!;
    expect(victimCart).toMatch(/^cart_/);
    expect(victimCart).not.toBe(attackerCart);
    await openReturnLink(victim, returnLink(attackerCart));

    expect(await storedCart(victim)).toBe(victimCart);
    await victim.getByTestId('return-elsewhere').waitFor({ timeout: 5_000 });
    expect(await victim.getByTestId('elsewhere-message').textContent()).toMatch(
      /not the one in this browser.*Nothing was added/s,
    );
    expect(await victim.getByTestId('try-again').count()).toBe(0);

    // Shopping on: the next item, the account (logging in attaches the browser's cart to the customer),
    // the email and the address all go to the victim's own cart.
    await victim.getByRole('navigation').getByRole('link', { name: 'Products' }).click();
    await addFirstProduct(victim);
    const email = uniqueEmail('fixation-medusa');
    // Registering with a cart logs in and goes on to the checkout (the cart is attached on login).
    await victim.getByRole('navigation').getByRole('link', { name: 'Log in' }).click();
    const form = victim.locator('#register');
    await form.getByLabel('First name').fill('Grace');
    await form.getByLabel('Last name').fill('Hopper');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill('correct-horse-battery');
    await form.getByRole('button', { name: 'Register' }).click();
    await victim.locator('#nav-account', { hasText: email }).waitFor();
    await fillDetailsToPayment(victim);
    expect(await storedCart(victim)).toBe(victimCart);

    const token = await victim.evaluate((key) => localStorage.getItem(key), TOKEN_KEY);
    const own = await storeCart(victimCart, token);
    expect(quantity(own)).toBe(2);
    expect(own.email).toBe(email);
    expect(own.customer?.email).toBe(email);
    expect(own.shipping_address?.address_1).toBe('1 Analytical Way');

    const other = await storeCart(attackerCart);
    expect(quantity(other)).toBe(quantity(before));
    expect(other.email ?? null).toBe(before.email ?? null);
    expect(other.customer?.id ?? null).toBeNull();
    expect(other.shipping_address?.address_1 ?? null).toBeNull();
    await victim.context().close();
  });

  it('a link with a malformed cart id is refused; no request is made with it', async () => {
    const page = await openStore(browser(), 'medusa');
    await addFirstProduct(page);
    const own = (await storedCart(page))!;
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/medusa-api/'))
        requests.push(`${request.method()} ${request.url()}`);
    });

    // Unencoded in a path, this walks out of /store/carts to /store/customers/me.
    await openReturnLink(page, returnLink('cart_01/../../customers/me'));
    expect(await storedCart(page)).toBe(own);
    await page.getByTestId('return-elsewhere').waitFor({ timeout: 5_000 });
    expect(await page.getByTestId('elsewhere-message').textContent()).toMatch(
      /does not name a valid cart; it was refused/,
    );
    // The header's refresh reads this browser's own cart; nothing else reaches the store.
    await page.waitForLoadState('networkidle');
    const ownCartRead = new RegExp(`^GET [^ ]*/medusa-api/store/carts/${own}\\?`);
    expect(requests.filter((request) => !ownCartRead.test(request))).toEqual([]);
    await page.context().close();
  });

  it('the return link of a paid cart opened in another browser shows the payment read-only and takes nothing', async () => {
    const { page } = await guestOnPaymentStep(browser(), 'medusa', 'return-elsewhere');
    const paidCart = (await storedCart(page))!;
    await payWith(page, 'pay-hosted');
    await payOnHostedPage(page, CARDS.success);
    await placedOrderReference(page);
    const link = page.url();
    expect(new URL(link).searchParams.get('cart_id')).toBe(paidCart);
    await page.context().close();

    const other = await openStore(browser(), 'medusa');
    await openReturnLink(other, link);
    expect(await storedCart(other)).toBeNull();
    await other.getByTestId('return-elsewhere').waitFor({ timeout: 5_000 });
    expect(await other.getByTestId('elsewhere-message').textContent()).toMatch(
      /complete and its order is placed/,
    );
    await other.context().close();
  });
});
