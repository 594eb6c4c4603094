import { describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import { CARD_METHOD, type StoreName } from './support/cards';
import {
  CARDS,
  completeSandboxPage,
  guestOnPaymentStep,
  placedOrderReference,
  screenshot,
  typeCardInElement,
} from './support/shopper';

const browser = useBrowser();

/** Guest, one product, card typed into the gateway's card element, Pay pressed. */
async function payWithElementCard(store: StoreName, card: string, label: string) {
  const shopper = await guestOnPaymentStep(browser(), store, label);
  await typeCardInElement(shopper.page, card);
  await shopper.page.getByTestId('pay').click();
  return shopper;
}

async function expectPaidCardOrder(store: StoreName, reference: string, email: string) {
  const order = await adminOrder(store, reference);
  expect(order.email).toBe(email);
  expect(order.paid).toBe(true);
  expect(order.method).toBe(CARD_METHOD[store]);
}

// Cards go through the gateway's card element (docs/card-element.md): guests pay without an account.
describe.each(['medusa', 'vendure'] as const)('%s: card that needs more than one answer', (store) => {
  it('3-D Secure through the element: the challenge page, then the order is placed', async () => {
    const { page, email } = await payWithElementCard(store, CARDS.challenge, '3ds');
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
      const { page, email } = await payWithElementCard(store, CARDS.pendingThenSuccess, 'pending');
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
