import { CardElement, ELEMENT_IDS } from '../card-element';
import { validateCard } from '../cards';
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
import { describeFailure, describeFailureCode } from '../failures';
import { redirectTarget } from '../redirect-target';
import {
  type CardChoice,
  FieldError,
  type PaymentOption,
  type PayResult,
  type SavedCard,
} from '../stores/types';
import { cartSummary } from './cart';
import { renderPlaced } from './return';

/** Shown instead of following a redirect to an address that is not a page of the gateway or ours. */
const INVALID_REDIRECT =
  'The payment page address from the store is not valid, so it was not opened. Try again or choose another way to pay.';

/** Every way to pay the store enables, then the hand-over to the gateway (or the placed order). */
export const paymentPage: Page = async ({ store, navigate, query, refreshHeader }) => {
  render(spinner('Loading payment options…'));
  const [cart, customer, options] = await Promise.all([
    store.getCart(),
    store.currentCustomer(),
    store.paymentOptions(),
  ]);
  if (!cart) {
    render(html`<h1>Payment</h1><p>Your cart is empty. <a href="/" data-link>Browse the products</a>.</p>`);
    return;
  }
  if (!cart.address || !cart.shippingOptionId) {
    navigate('/checkout');
    return;
  }
  const saved: SavedCard[] = customer ? await store.savedCards().catch(() => []) : [];
  // Typed card numbers only where the store opted in (PCI); everyone else gets the gateway's card
  // element (docs/card-element.md).
  const canType = store.rawCards === 'anyone' || (store.rawCards === 'logged-in' && customer !== undefined);
  const useElement = store.rawCards === 'no';
  // A reason code, never text: the link may come from anyone (failures.ts).
  const retry = query.get('retry');
  const address = cart.address;
  const email = cart.email ?? customer?.email ?? '';

  render(html`<h1>Payment</h1>
    <div class="columns"><form id="payment" class="card" novalidate>
      ${retry ? html`<p class="notice" data-testid="retry-reason">${describeFailureCode(retry)}</p>` : ''}
      ${options.map((option, index) =>
        optionHtml(
          option,
          index === 0,
          saved,
          { canType, useElement, loggedIn: customer !== undefined },
          store.rawCards,
        ),
      )}
      <p class="form-error" role="alert" data-testid="payment-error"></p>
      <button type="submit" id="pay" data-testid="pay">Pay ${formatMoney(cart.total)}</button>
    </form><aside class="card"><h2>Order</h2>${cartSummary(cart)}
      <p class="muted">Deliver to ${cart.address.firstName} ${cart.address.lastName}, ${cart.address.line1}, ${cart.address.city}</p>
      <a href="/checkout" data-link>Change address or shipping</a></aside></div>`);

  const form = document.getElementById('payment') as HTMLFormElement;
  const cardOption = options.find((option) => option.kind === 'card');
  const element =
    useElement && cardOption
      ? new CardElement(() => store.cardElement(cardOption), {
          wrapper: () => document.getElementById(ELEMENT_IDS.wrapper),
          message: () => form.querySelector<HTMLElement>('[data-error-for="card"]'),
        })
      : undefined;
  const elementStatus = () => form.querySelector<HTMLElement>('[data-testid="card-element-status"]');
  /** Mounts the element the first time the new-card fields are shown; a failure can be retried. */
  const showElement = () => {
    if (!element) return;
    void element.mount().then(
      () => {
        const status = elementStatus();
        if (status) status.textContent = '';
        form.querySelector<HTMLElement>(`#${ELEMENT_IDS.wrapper}`)?.setAttribute('data-ready', 'true');
      },
      (error: unknown) => {
        const status = elementStatus();
        if (status) status.textContent = error instanceof Error ? error.message : String(error);
      },
    );
  };
  const syncCardFields = () => {
    const method = formValues(form).method;
    for (const block of form.querySelectorAll<HTMLElement>('[data-card-fields]'))
      block.hidden = block.dataset.cardFields !== method;
    const newCard = form.querySelector<HTMLElement>('#new-card');
    if (newCard) newCard.hidden = (formValues(form).savedCard ?? 'new') !== 'new';
    if (newCard && !newCard.hidden && cardOption && method === cardOption.id) showElement();
  };
  form.addEventListener('change', syncCardFields);
  syncCardFields();

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    void busy(form, async () => {
      try {
        const values = formValues(form);
        const option = options.find((candidate) => candidate.id === values.method);
        if (!option) throw new FieldError('method', 'Choose how to pay');
        let choice: CardChoice | undefined;
        if (option.kind === 'card') {
          if (values.savedCard && values.savedCard !== 'new') choice = { savedCardId: values.savedCard };
          else if (element) {
            if (!address) throw new FieldError('method', 'Enter your address first');
            const status = form.querySelector('.form-error')!;
            status.innerHTML = spinner('Checking the card…').value;
            const methodId = await element.confirm({ email, address });
            choice = {
              elementMethodId: methodId,
              saveCard: values.saveCard === 'on' && customer !== undefined,
            };
          } else if (canType)
            choice = {
              card: validateCard({
                cardNo: values.cardNo ?? '',
                expMonth: values.expMonth ?? '',
                expYear: values.expYear ?? '',
                cvc: values.cvc ?? '',
              }),
            };
          else throw new FieldError('method', 'Log in and save a card first, or pay on the secure page');
        }
        const status = form.querySelector('.form-error')!;
        status.innerHTML = spinner('Contacting the payment gateway…').value;
        const result = await store.pay(option, choice);
        status.textContent = '';
        await handleResult(result);
      } catch (error) {
        form.querySelector('.form-error')!.textContent = '';
        showError(form, error);
      }
    });
  });

  async function handleResult(result: PayResult): Promise<void> {
    switch (result.kind) {
      case 'redirect': {
        const target = redirectTarget(result.url);
        if (!target) {
          form.querySelector('.form-error')!.textContent = INVALID_REDIRECT;
          return;
        }
        if (target.kind === 'page') {
          navigate(target.path);
          return;
        }
        render(spinner('Redirecting you to the secure payment page…'));
        location.assign(target.url);
        return;
      }
      case 'placed':
        await refreshHeader();
        renderPlaced(store.name, result.order);
        return;
      case 'pending':
        render(spinner(result.message));
        return;
      case 'failed': {
        const slot = form.querySelector('.form-error')!;
        slot.textContent = describeFailure(result.reason);
        // The typed card is wrong or refused: clear it so the next attempt starts clean.
        for (const name of ['cardNo', 'cvc']) {
          const input = form.querySelector<HTMLInputElement>(`[name="${name}"]`);
          if (input) input.value = '';
        }
        // The element's card was refused: fresh, empty fields for the next card.
        if (element && (formValues(form).savedCard ?? 'new') === 'new') {
          form.querySelector(`#${ELEMENT_IDS.wrapper}`)?.removeAttribute('data-ready');
          void element.reset().then(
            () => form.querySelector(`#${ELEMENT_IDS.wrapper}`)?.setAttribute('data-ready', 'true'),
            (error: unknown) => {
              const status = elementStatus();
              if (status) status.textContent = error instanceof Error ? error.message : String(error);
            },
          );
        }
      }
    }
  }
};

function optionHtml(
  option: PaymentOption,
  checked: boolean,
  saved: SavedCard[],
  card: { canType: boolean; useElement: boolean; loggedIn: boolean },
  rawCards: string,
): Html {
  const { canType, useElement, loggedIn } = card;
  const testId = option.kind === 'local' ? `pay-local-${option.label.toLowerCase()}` : `pay-${option.kind}`;
  const radio = html`<label class="choice"><input type="radio" name="method" value="${option.id}" data-testid="${testId}"
    ${new Html(checked ? 'checked' : '')}> ${option.label}${
      option.kind === 'local'
        ? html` <span class="muted">(you finish on the ${option.label} page)</span>`
        : ''
    }</label>`;
  if (option.kind !== 'card') return radio;
  const canAddCard = canType || useElement;
  const hint =
    !canAddCard && saved.length === 0
      ? html`<p class="muted">${
          rawCards === 'logged-in' && !loggedIn
            ? html`<a href="/account" data-link>Log in</a> to pay with a card saved on your account, or pay on the secure page.`
            : 'No saved cards yet: pay on the secure page.'
        }</p>`
      : '';
  const newCardChoice =
    canAddCard && saved.length > 0
      ? html`<label class="choice"><input type="radio" name="savedCard" value="new" data-testid="new-card"> A new card</label>`
      : '';
  const typedFields = html`${field('cardNo', 'Card number', '', { inputmode: 'numeric', autocomplete: 'cc-number' })}
      <div class="row">${field('expMonth', 'Expiry month (MM)', '', { inputmode: 'numeric', autocomplete: 'cc-exp-month' })}
      ${field('expYear', 'Expiry year (YYYY)', '', { inputmode: 'numeric', autocomplete: 'cc-exp-year' })}
      ${field('cvc', 'Security code', '', { inputmode: 'numeric', autocomplete: 'cc-csc' })}</div>
      ${rawCards === 'logged-in' ? html`<p class="muted">The card is saved on your account for next time.</p>` : ''}`;
  // The gateway's card fields (an iframe from the payment host) are mounted into #card-element.
  const elementFields = html`<div id="${ELEMENT_IDS.wrapper}" class="card-element" data-testid="card-element"></div>
      <p class="muted" data-testid="card-element-status" role="status">Loading the secure card form…</p>
      <span class="field-error" data-error-for="card" data-testid="card-element-error" role="alert"></span>
      ${
        loggedIn
          ? html`<label class="choice"><input type="checkbox" name="saveCard" data-testid="save-card"> Save this card for next time</label>`
          : ''
      }
      <p class="muted">The card is entered in the payment gateway's secure form; this store never sees the number.</p>`;
  return html`${radio}<fieldset class="card-fields" data-card-fields="${option.id}">
    ${saved.map(
      (card, index) => html`<label class="choice"><input type="radio" name="savedCard" value="${card.id}"
        ${new Html(index === 0 ? 'checked' : '')}> ${card.label}</label>`,
    )}
    ${canAddCard ? html`${newCardChoice}<div id="new-card">${useElement ? elementFields : typedFields}</div>` : ''}${hint}<span class="field-error" data-error-for="method" role="alert"></span></fieldset>`;
}
