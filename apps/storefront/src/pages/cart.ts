import type { Page } from '../context';
import { formatMoney, html, render, spinner } from '../dom';
import type { Cart } from '../stores/types';

export function cartSummary(cart: Cart): ReturnType<typeof html> {
  return html`<table class="lines">${cart.lines.map(
    (line) =>
      html`<tr><td>${line.title}</td><td>× ${line.quantity}</td><td class="num">${formatMoney(line.total)}</td></tr>`,
  )}
    <tr class="sub"><td colspan="2">Shipping</td><td class="num">${formatMoney(cart.shipping)}</td></tr>
    <tr class="total"><td colspan="2">Total</td><td class="num" data-testid="cart-total">${formatMoney(cart.total)}</td></tr></table>`;
}

export const cartPage: Page = async ({ store, navigate, refreshHeader }) => {
  render(spinner('Loading your cart…'));
  const cart = await store.getCart();
  if (!cart || cart.lines.length === 0) {
    render(html`<h1>Your cart</h1><p>Your cart is empty. <a href="/" data-link>Browse the products</a>.</p>`);
    return;
  }
  render(html`<h1>Your cart</h1>
    <table class="lines">${cart.lines.map(
      (line) => html`<tr><td>${line.title}</td><td>× ${line.quantity}</td>
        <td class="num">${formatMoney(line.total)}</td>
        <td><button class="link" data-remove="${line.id}">Remove</button></td></tr>`,
    )}
      <tr class="total"><td colspan="2">Subtotal</td><td class="num">${formatMoney(cart.subtotal)}</td><td></td></tr>
    </table>
    <button data-testid="go-checkout" id="go-checkout">Checkout</button>`);
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-remove]')) {
    button.addEventListener('click', () => {
      button.disabled = true;
      void store.removeLine(button.dataset.remove!).then(() => {
        void refreshHeader();
        navigate('/cart');
      });
    });
  }
  document.getElementById('go-checkout')!.addEventListener('click', () => navigate('/checkout'));
};
