import type { Page } from '../context';
import {
  busy,
  clearErrors,
  field,
  formatMoney,
  formValues,
  Html,
  html,
  render,
  showError,
  spinner,
} from '../dom';
import { FieldError } from '../stores/types';
import { addressFields, readAddress } from './address';
import { cartSummary } from './cart';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Contact, address and shipping; then on to the payment page. */
export const checkoutPage: Page = async ({ store, navigate }) => {
  render(spinner('Loading checkout…'));
  const [cart, customer] = await Promise.all([store.getCart(), store.currentCustomer()]);
  if (!cart) {
    render(html`<h1>Checkout</h1><p>Your cart is empty. <a href="/" data-link>Browse the products</a>.</p>`);
    return;
  }
  const address =
    cart.address ?? (customer ? { firstName: customer.firstName, lastName: customer.lastName } : undefined);
  render(html`<h1>Checkout</h1>
    <div class="columns"><form id="details" class="card" novalidate>
      <h2>Contact</h2>${field('email', 'Email', cart.email ?? customer?.email ?? '', { type: 'email', autocomplete: 'email' })}
      ${customer ? '' : new Html('<p class="muted">Have an account? <a href="/account" data-link>Log in</a> to use saved cards.</p>')}
      <h2>Delivery address</h2>${addressFields(address)}
      <button type="submit" id="save-details">Continue to shipping</button><p class="form-error" role="alert"></p>
    </form>
    <aside class="card" id="summary"><h2>Order</h2>${cartSummary(cart)}</aside></div>
    <form id="shipping" class="card" hidden></form>`);
  const details = document.getElementById('details') as HTMLFormElement;
  const shipping = document.getElementById('shipping') as HTMLFormElement;

  details.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(details);
    void busy(details, async () => {
      try {
        const values = formValues(details);
        if (!EMAIL.test(values.email?.trim() ?? ''))
          throw new FieldError('email', 'Enter a valid email address');
        const updated = await store.setDetails(values.email!.trim(), readAddress(values));
        document.getElementById('summary')!.innerHTML = `<h2>Order</h2>${cartSummary(updated).value}`;
        await showShipping(updated.shippingOptionId);
      } catch (error) {
        showError(details, error);
      }
    });
  });

  async function showShipping(current: string | undefined): Promise<void> {
    const options = await store.shippingOptions();
    shipping.hidden = false;
    shipping.innerHTML = html`<h2>Shipping</h2>${
      options.length === 0 ? html`<p class="error">No shipping to this address.</p>` : ''
    }${options.map(
      (option, index) => html`<label class="choice"><input type="radio" name="shipping" value="${option.id}"
        ${new Html(option.id === current || (!current && index === 0) ? 'checked' : '')}>
        ${option.name} — ${formatMoney(option.price)}</label>`,
    )}<span class="field-error" data-error-for="shipping" role="alert"></span>
      <button type="submit" id="to-payment">Continue to payment</button><p class="form-error" role="alert"></p>`.value;
    shipping.scrollIntoView({ block: 'nearest' });
  }

  shipping.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(shipping);
    void busy(shipping, async () => {
      try {
        const chosen = formValues(shipping).shipping;
        if (!chosen) throw new FieldError('shipping', 'Choose a shipping method');
        await store.setShipping(chosen);
        navigate('/checkout/payment');
      } catch (error) {
        showError(shipping, error);
      }
    });
  });
};
