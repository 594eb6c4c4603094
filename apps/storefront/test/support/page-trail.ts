/**
 * What a shopper's page did, printed only when its test fails: CI keeps what the run printed, not the
 * screenshots, so a journey that times out there (once waiting for the cart's Checkout button, not
 * reproduced locally) must say by itself what the page showed and which store calls it made.
 *
 * Nothing typed into a form is printed: requests are named by method and path (GraphQL by its first
 * field), never by body or query string, so card numbers cannot reach CI's output this way.
 */
import type { Page, Request } from 'playwright-core';
import { onTestFailed } from 'vitest';

const KEPT = 60;

/** The first field a GraphQL document selects (`addItemToOrder`), or '' for anything else. */
export function graphqlField(body: string | null): string {
  if (!body) return '';
  try {
    const { query } = JSON.parse(body) as { query?: unknown };
    if (typeof query !== 'string') return '';
    return /^\s*(?:query|mutation)?[^{]*\{\s*(\w+)/.exec(query)?.[1] ?? '';
  } catch {
    return '';
  }
}

function describeRequest(request: Request): string {
  const url = new URL(request.url());
  const field = graphqlField(request.postData());
  const auth = request.headers().authorization ? ' +token' : '';
  return `${request.method()} ${url.host}${url.pathname}${field ? ` ${field}` : ''}${auth}`;
}

/** Keeps the page's console, errors and store calls, and prints them if the running test fails. */
export function keepPageTrail(page: Page, label: string): void {
  const started = Date.now();
  const trail: string[] = [];
  const note = (line: string) => {
    trail.push(`+${Date.now() - started}ms ${line}`);
    if (trail.length > KEPT) trail.shift();
  };
  page.on('console', (message) => note(`console.${message.type()}: ${message.text().slice(0, 300)}`));
  page.on('pageerror', (error) => note(`page error: ${error.message.slice(0, 300)}`));
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) note(`navigated: ${new URL(frame.url()).pathname}`);
  });
  page.on('requestfailed', (request) =>
    note(`failed: ${describeRequest(request)} (${request.failure()?.errorText})`),
  );
  page.on('response', (response) => {
    const request = response.request();
    if (!['fetch', 'xhr'].includes(request.resourceType())) return;
    const issued = response.headers()['vendure-auth-token'] ? ' issued-token' : '';
    note(`${response.status()} ${describeRequest(request)}${issued}`);
  });
  onTestFailed(async () => {
    const shown = await page
      .evaluate(() => ({
        text: (document.body.textContent ?? '').replace(/\s+/g, ' ').slice(0, 1500),
        storage: Object.keys(localStorage),
      }))
      .catch((error: Error) => ({ text: `(page not readable: ${error.message})`, storage: [] as string[] }));
    console.log(
      [
        `--- page trail of ${label} at ${page.url()} ---`,
        `localStorage keys: ${shown.storage.join(', ') || '(none)'}`,
        `page text: ${shown.text}`,
        ...trail,
        `--- end of page trail of ${label} ---`,
      ].join('\n'),
    );
  });
}
