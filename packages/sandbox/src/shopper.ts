/**
 * The shopper's side of the sandbox's pages, for tests and scripts of the stores that use the sandbox:
 * one place that knows the page form (outcome buttons, card inputs) instead of a copy per store.
 */
import { TEST_CARDS } from './cards.js';

function cardNumberOf(behaviour: (typeof TEST_CARDS)[number]['behaviour']): string {
  const card = TEST_CARDS.find((candidate) => candidate.behaviour === behaviour);
  if (!card) throw new Error(`no test card behaves as ${behaviour}`);
  return card.cardNo;
}

/** Test card numbers by what they do (the table is TEST_CARDS). */
export const TEST_CARD_NUMBERS = {
  success: cardNumberOf('success'),
  decline: cardNumberOf('decline'),
  challenge: cardNumberOf('challenge'),
  pendingThenSuccess: cardNumberOf('pending'),
  challengeFail: cardNumberOf('challenge-fail'),
} as const;

export type PageOutcome = 'success' | 'fail' | 'abandon';

/** Card inputs of the hosted card page with a valid future expiry. */
export function testCardForm(cardNo: string): Record<string, string> {
  return {
    cardNo,
    cardExpireMonth: '12',
    cardExpireYear: String(new Date().getFullYear() + 2),
    cardSecurityCode: '123',
  };
}

/**
 * Opens a sandbox page (hosted checkout, 3-D Secure challenge, local method) and presses one of its
 * buttons. `location` is the signed returnUrl (303), or null when the sandbox does not return the shopper.
 */
export async function submitSandboxPage(
  redirectUrl: string,
  outcome: PageOutcome,
  cardNo?: string,
): Promise<{ status: number; location: string | null }> {
  const page = await fetch(redirectUrl);
  await page.text();
  if (page.status !== 200) throw new Error(`sandbox page ${redirectUrl} answered ${page.status}`);
  const form = new URLSearchParams({ outcome, ...(cardNo ? testCardForm(cardNo) : {}) });
  const posted = await fetch(redirectUrl, { method: 'POST', body: form, redirect: 'manual' });
  await posted.text();
  return { status: posted.status, location: posted.status === 303 ? posted.headers.get('location') : null };
}
