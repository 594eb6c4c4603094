import { inject } from 'vitest';
import type { Json } from './store-api';

export const CARDS = {
  success: '4242424242424242',
  decline: '4000000000009995',
  challenge: '4000002500003155',
  pendingThenSuccess: '4000000000000077',
  challengeFail: '4000000000003220',
} as const;

/** Acts as the shopper on a sandbox hosted page: posts the form, returns the signed returnUrl. */
export async function finishHostedPage(
  redirectUrl: string,
  outcome: 'success' | 'fail' | 'abandon',
  cardNo?: string,
): Promise<string> {
  const page = await fetch(redirectUrl);
  if (page.status !== 200) throw new Error(`hosted page answered ${page.status}`);
  const form = new URLSearchParams({ outcome });
  if (cardNo) {
    form.set('cardNo', cardNo);
    form.set('cardExpireMonth', '12');
    form.set('cardExpireYear', String(new Date().getFullYear() + 2));
    form.set('cardSecurityCode', '123');
  }
  const response = await fetch(redirectUrl, { method: 'POST', body: form, redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 303 || !location) {
    throw new Error(`hosted page post answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  return location;
}

/** Follows the gateway's return to the Medusa return route; returns the storefront redirect. */
export async function followReturn(returnLocation: string): Promise<URL> {
  const response = await fetch(returnLocation, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 303 || !location)
    throw new Error(`return route answered ${response.status}: ${await response.text()}`);
  return new URL(location);
}

/** Finishes a hosted page when the sandbox is told not to return the shopper (callback only). */
export async function finishWithoutReturn(
  redirectUrl: string,
  outcome: 'success' | 'fail',
  cardNo?: string,
): Promise<void> {
  const form = new URLSearchParams({ outcome });
  if (cardNo) {
    form.set('cardNo', cardNo);
    form.set('cardExpireMonth', '12');
    form.set('cardExpireYear', String(new Date().getFullYear() + 2));
    form.set('cardSecurityCode', '123');
  }
  const response = await fetch(redirectUrl, { method: 'POST', body: form, redirect: 'manual' });
  if (response.status !== 200) throw new Error(`hosted page post answered ${response.status}`);
}

export async function sandboxControl(path: string, body?: unknown, method?: string): Promise<Json> {
  const response = await fetch(`${inject('sandboxUrl')}/_sandbox/${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}
