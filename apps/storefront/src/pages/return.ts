import type { Page } from '../context';
import { formatMoney, html, render, spinner } from '../dom';
import { describeFailure, failureCode } from '../failures';
import type { PlacedOrder } from '../stores/types';

/** How long the page keeps asking before it tells the shopper to come back later (not a test bound). */
const WAIT_FOR_CALLBACK_MS = 90_000;

export function renderPlaced(storeName: string, order: PlacedOrder): void {
  render(html`<section class="card done" data-testid="order-placed">
    <h1>Thank you! Your order is placed.</h1>
    <p>Order <strong data-testid="order-reference">${order.reference}</strong> at the ${storeName} store,
      total <strong>${formatMoney(order.total)}</strong>, payment <span class="ok">${order.paymentStatus}</span>.</p>
    <p><a href="/" data-link>Continue shopping</a></p></section>`);
}

/**
 * Where the gateway (through the store's return route) sends the shopper. The store has already
 * verified the signed return; this page reads the result from the store, never from the query alone.
 */
export const returnPage: Page = async ({ store, path, query, refreshHeader }) => {
  render(spinner('Confirming your payment with the store…'));
  const deadline = Date.now() + WAIT_FOR_CALLBACK_MS;
  for (;;) {
    const state = await store.readReturn(path, query);
    if (state.kind === 'placed') {
      await refreshHeader();
      renderPlaced(store.name, state.order);
      return;
    }
    if (state.kind === 'failed') {
      render(html`<section class="card failed" data-testid="payment-failed">
        <h1>The payment did not go through</h1>
        <p class="error" data-testid="failure-reason">${describeFailure(state.reason)}</p>
        <p>Your cart is kept. <a href="/checkout/payment?retry=${failureCode(state.reason)}" data-link
          data-testid="try-again" class="button">Try again</a></p></section>`);
      return;
    }
    if (state.kind === 'elsewhere') {
      // Not this browser's cart: shown, never adopted (no "try again", which would pay this browser's cart).
      render(html`<section class="card" data-testid="return-elsewhere">
        <h1>This payment is not for the cart in this browser</h1>
        <p data-testid="elsewhere-message">${state.message}</p>
        <p><a href="/" data-link>Continue shopping</a></p></section>`);
      return;
    }
    if (state.kind === 'not-applied') {
      // Fixed words, no "try again": the store refuses a second payment until the shop has acted.
      render(html`<section class="card failed" data-testid="payment-not-applied">
        <h1>Your payment was received, but not applied to the order</h1>
        <p>The shop could not apply it (an offer or an item may have run out while you paid) and has
          been alerted. Please do not pay again: the shop will refund the payment or complete the order.</p>
        <p><a href="/" data-link>Continue shopping</a></p></section>`);
      return;
    }
    if (Date.now() > deadline) {
      render(html`<section class="card"><h1>Still waiting for the gateway</h1>
        <p>${state.message} We will place the order as soon as the gateway confirms; reload this page later.</p></section>`);
      return;
    }
    render(spinner(state.message));
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
};
