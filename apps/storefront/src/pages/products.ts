import type { Page } from '../context';
import { busy, formatMoney, html, render, showError, spinner } from '../dom';

export const productsPage: Page = async ({ store, refreshHeader }) => {
  render(spinner(`Loading products from ${store.name}…`));
  const products = await store.listProducts();
  render(html`<h1>Products <small>${store.name} store</small></h1>
    <div class="grid">${products.map(
      (product) => html`<form class="card product" data-testid="product" data-product-id="${product.id}">
        <h2>${product.title}</h2><p class="muted">${product.description}</p>
        <label class="field">Option <select name="variant">${product.variants.map(
          (variant) =>
            html`<option value="${variant.id}">${variant.title} — ${formatMoney(variant.price)}</option>`,
        )}</select></label>
        <label class="field">Quantity <input name="quantity" type="number" min="1" max="99" value="1"></label>
        <button type="submit">Add to cart</button>
        <p class="form-error" role="alert"></p><p class="added muted" role="status"></p>
      </form>`,
    )}</div>`);
  for (const form of document.querySelectorAll<HTMLFormElement>('form.product')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const variant = (form.elements.namedItem('variant') as HTMLSelectElement).value;
      const quantity = Number((form.elements.namedItem('quantity') as HTMLInputElement).value) || 1;
      void busy(form, async () => {
        try {
          const cart = await store.addToCart(variant, quantity);
          form.querySelector('.added')!.textContent = `Added. ${cart.itemCount} item(s) in your cart.`;
          await refreshHeader();
        } catch (error) {
          showError(form, error);
        }
      });
    });
  }
};
