import { validateCard } from '../cards';
import type { Page } from '../context';
import { busy, clearErrors, field, formValues, html, render, showError, spinner } from '../dom';
import { addressFields, readAddress } from './address';

/** The logged-in customer's saved cards: list, remove, and add one where the store allows typed cards. */
export const cardsPage: Page = async ({ store, navigate }) => {
  render(spinner('Loading your saved cards…'));
  const customer = await store.currentCustomer();
  if (!customer) {
    render(
      html`<h1>My saved cards</h1><p><a href="/account" data-link>Log in</a> to see your saved cards.</p>`,
    );
    return;
  }
  const cards = await store.savedCards();
  render(html`<h1>My saved cards <small>${store.name} store</small></h1>
    ${
      cards.length === 0
        ? html`<p data-testid="no-cards">No saved cards yet.</p>`
        : html`<ul class="saved" data-testid="saved-cards">${cards.map(
            (card) =>
              html`<li>${card.label} <button class="link" data-remove="${card.id}">Remove</button></li>`,
          )}</ul>`
    }
    ${
      store.rawCards === 'no'
        ? html`<p class="muted" data-testid="save-at-checkout">To save a card, tick "Save this card for next time" when you pay with a new card: the card is entered in the payment gateway's secure form.</p>`
        : html`<form id="add-card" class="card" novalidate><h2>Add a card</h2>
      ${field('cardNo', 'Card number', '', { inputmode: 'numeric', autocomplete: 'cc-number' })}
      <div class="row">${field('expMonth', 'Expiry month (MM)', '', { inputmode: 'numeric' })}
      ${field('expYear', 'Expiry year (YYYY)', '', { inputmode: 'numeric' })}
      ${field('cvc', 'Security code', '', { inputmode: 'numeric', autocomplete: 'cc-csc' })}</div>
      <h2>Billing address</h2>${addressFields({ firstName: customer.firstName, lastName: customer.lastName })}
      <button type="submit">Save card</button><p class="form-error" role="alert"></p></form>`
    }`);
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-remove]')) {
    button.addEventListener('click', () => {
      button.disabled = true;
      void store.removeCard(button.dataset.remove!).then(() => navigate('/account/cards'));
    });
  }
  const form = document.getElementById('add-card') as HTMLFormElement | null;
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    void busy(form, async () => {
      try {
        const values = formValues(form);
        const card = validateCard({
          cardNo: values.cardNo ?? '',
          expMonth: values.expMonth ?? '',
          expYear: values.expYear ?? '',
          cvc: values.cvc ?? '',
        });
        await store.saveCard(card, readAddress(values));
        navigate('/account/cards');
      } catch (error) {
        showError(form, error);
      }
    });
  });
};
