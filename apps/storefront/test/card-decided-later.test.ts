import { describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import { CARD_METHOD, type StoreName } from './support/cards';
import {
  CARDS,
  completeSandboxPage,
  placedOrderReference,
  registeredShopperAtPayment,
  screenshot,
  typeCard,
} from './support/shopper';

const browser = useBrowser();

/** Registered shopper, one product, typed card, Pay pressed. Returns the page and the shopper's email. */
async function payWithTypedCard(store: StoreName, card: string, label: string) {
  const shopper = await registeredShopperAtPayment(browser(), store, label);
  await typeCard(shopper.page, card);
  await shopper.page.getByTestId('pay').click();
  return shopper;
}

async function expectPaidCardOrder(store: StoreName, reference: string, email: string) {
  const order = await adminOrder(store, reference);
  expect(order.email).toBe(email);
  expect(order.paid).toBe(true);
  expect(order.method).toBe(CARD_METHOD[store]);
}

// Logged in on both stores: Medusa takes typed cards only by saving them on the customer's account.
describe.each(['medusa', 'vendure'] as const)('%s: card that needs more than one answer', (store) => {
  it('sends the shopper to the challenge page and places the order after it passes', async () => {
    const { page, email } = await payWithTypedCard(store, CARDS.challenge, '3ds');
    await completeSandboxPage(page, /3-D Secure challenge/);
    const reference = await placedOrderReference(page);
    await screenshot(page, `${store}-three-d-secure`);
    await expectPaidCardOrder(store, reference, email);
    await page.context().close();
  });

  it('a pending card is paid only when the callback settles it', async () => {
    // The gateway decides a pending card only by callback. Holding callbacks for 5 s makes the unpaid
    // stretch long enough to observe (the sandbox's own pending delay is compressed to milliseconds).
    const chaos = `${inject('sandboxUrl')}/_sandbox/chaos`;
    const hold = (body: object | undefined) =>
      fetch(chaos, {
        method: body ? 'POST' : 'DELETE',
        headers: { 'content-type': 'application/json' },
        body: body && JSON.stringify(body),
      });
    await hold({ delayMs: 5000 });
    try {
      const { page, email } = await payWithTypedCard(store, CARDS.pendingThenSuccess, 'pending');
      if (store === 'vendure') {
        // Vendure adds no payment until the callback: the shopper waits on the order page.
        await page.getByText('Waiting for the gateway to confirm the payment').waitFor({ timeout: 30_000 });
        expect(new URL(page.url()).pathname).toMatch(/^\/order\//);
      }
      const reference = await placedOrderReference(page);
      if (store === 'medusa') {
        // Medusa places the order at once with its payment pending_authorization (docs/payment-states.md#platform-mapping).
        expect((await adminOrder(store, reference)).paid).toBe(false);
        await expect
          .poll(async () => (await adminOrder(store, reference)).paid, { timeout: 30_000, interval: 500 })
          .toBe(true);
      }
      await expectPaidCardOrder(store, reference, email);
      await page.context().close();
    } finally {
      await hold(undefined);
    }
  });
});
