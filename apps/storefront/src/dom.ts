import { FieldError, type Money } from './stores/types';

/** Marks a string as trusted HTML so `html` does not escape it again. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/** Template tag that escapes every value unless it is Html (or an array of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    const part = Array.isArray(value)
      ? value.map((item) => (item instanceof Html ? item.value : escapeHtml(item))).join('')
      : value instanceof Html
        ? value.value
        : escapeHtml(value);
    out += part + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

export function app(): HTMLElement {
  return document.getElementById('app')!;
}

export function render(content: Html): void {
  app().innerHTML = content.value;
}

export function formatMoney(money: Money): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency: money.currency || 'USD' }).format(
    money.amount,
  );
}

export function spinner(text: string): Html {
  return html`<div class="progress" role="status" data-testid="progress"><span class="spinner"></span>${text}</div>`;
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  new FormData(form).forEach((value, key) => {
    values[key] = String(value);
  });
  return values;
}

/** One labelled input with the place for its error right next to it. */
export function field(
  name: string,
  label: string,
  value = '',
  attrs: { type?: string; autocomplete?: string; inputmode?: string } = {},
): Html {
  return html`<label class="field">${label}
    <input name="${name}" id="f-${name}" value="${value}" type="${attrs.type ?? 'text'}"
      autocomplete="${attrs.autocomplete ?? 'on'}" inputmode="${attrs.inputmode ?? 'text'}">
    <span class="field-error" data-error-for="${name}" role="alert"></span></label>`;
}

export function clearErrors(root: ParentNode): void {
  for (const node of root.querySelectorAll('[data-error-for]')) node.textContent = '';
  for (const node of root.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  for (const node of root.querySelectorAll('.form-error')) node.textContent = '';
}

/** Shows a FieldError next to its field; anything else in the form's general error slot. */
export function showError(root: ParentNode, error: unknown): void {
  if (error instanceof FieldError) {
    const slot = root.querySelector(`[data-error-for="${error.field}"]`);
    if (slot) {
      slot.textContent = error.message;
      root.querySelector(`[name="${error.field}"]`)?.setAttribute('aria-invalid', 'true');
      (root.querySelector(`[name="${error.field}"]`) as HTMLInputElement | null)?.focus();
      return;
    }
  }
  const general = root.querySelector('.form-error');
  const message = error instanceof Error ? error.message : String(error);
  if (general) general.textContent = message;
  else alert(message);
}

/** Disables a form's buttons while `work` runs, showing a spinner in the button that was pressed. */
export async function busy<T>(form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const buttons = [...form.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  form.classList.add('busy');
  try {
    return await work();
  } finally {
    form.classList.remove('busy');
    for (const button of buttons) button.disabled = false;
  }
}
