/**
 * Gateway and store failure texts in words a shopper understands. The sandbox and the gateway send
 * short English `orderInfo` texts; the known ones get a hint about what to do next. A link carries a
 * failure only as a code (`?retry=declined`), mapped back to fixed words: a link can come from anyone,
 * and its text must not be shown on the store's pages.
 */
export type FailureCode =
  | 'declined'
  | 'authentication'
  | 'invalid-card'
  | 'abandoned'
  | 'expired'
  | 'insufficient-funds'
  | 'failed';

const KNOWN: { code: Exclude<FailureCode, 'failed'>; pattern: RegExp; hint: string }[] = [
  { code: 'declined', pattern: /declin/i, hint: 'Your card was declined by the bank. Try another card.' },
  {
    code: 'authentication',
    pattern: /3-?D ?Secure|authentication/i,
    hint: 'The card security check (3-D Secure) failed. Try again or use another card.',
  },
  {
    code: 'invalid-card',
    pattern: /invalid card/i,
    hint: 'The card number is not valid. Check it or use another card.',
  },
  {
    code: 'abandoned',
    pattern: /abandon|cancel/i,
    hint: 'The payment was cancelled on the payment page. Nothing was charged.',
  },
  { code: 'expired', pattern: /expired/i, hint: 'The card has expired. Use another card.' },
  {
    code: 'insufficient-funds',
    pattern: /insufficient/i,
    hint: 'The card has insufficient funds. Use another card.',
  },
];

const GENERIC = 'The payment did not go through. Nothing was charged; you can try again.';

function withoutPrefix(reason: string | undefined): string {
  return (reason ?? '').replace(/^The gateway refused the payment:\s*/i, '').trim();
}

/** The store's failure text (from the store, never from a link) in words, with a hint when known. */
export function describeFailure(reason: string | undefined): string {
  const text = withoutPrefix(reason);
  if (!text) return GENERIC;
  const hint = KNOWN.find(({ pattern }) => pattern.test(text))?.hint;
  return hint ? `${hint} (${text})` : `The payment did not go through: ${text}`;
}

/** The code a link carries for a failure text; `failed` when it is none of the known ones. */
export function failureCode(reason: string | undefined): FailureCode {
  const text = withoutPrefix(reason);
  return KNOWN.find(({ pattern }) => pattern.test(text))?.code ?? 'failed';
}

/** The fixed words of a code from a link; anything else gets the generic text, never the link's own. */
export function describeFailureCode(code: string | null | undefined): string {
  return KNOWN.find((known) => known.code === code)?.hint ?? GENERIC;
}
