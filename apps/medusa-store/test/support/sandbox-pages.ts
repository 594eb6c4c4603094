import { type PageOutcome, submitSandboxPage } from '@gatewaykit/sandbox';
import { inject } from 'vitest';
import type { Json } from './store-api';

export { TEST_CARD_NUMBERS as CARDS } from '@gatewaykit/sandbox';

/** Acts as the shopper on a sandbox hosted page: posts the form, returns the signed returnUrl. */
export async function finishHostedPage(
  redirectUrl: string,
  outcome: PageOutcome,
  cardNo?: string,
): Promise<string> {
  const { status, location } = await submitSandboxPage(redirectUrl, outcome, cardNo);
  if (!location) throw new Error(`hosted page post answered ${status} without a return`);
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
  const { status } = await submitSandboxPage(redirectUrl, outcome, cardNo);
  if (status !== 200) throw new Error(`hosted page post answered ${status}`);
}

export async function sandboxControl(path: string, body?: unknown, method?: string): Promise<Json> {
  const response = await fetch(`${inject('sandboxUrl')}/_sandbox/${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}
