/**
 * Gateway and store failure texts in words a shopper understands. The sandbox and the gateway send
 * short English `orderInfo` texts; the known ones get a hint about what to do next.
 */
const KNOWN: [RegExp, string][] = [
  [/declin/i, 'Your card was declined by the bank. Try another card.'],
  [
    /3-?D ?Secure|authentication/i,
    'The card security check (3-D Secure) failed. Try again or use another card.',
  ],
  [/invalid card/i, 'The card number is not valid. Check it or use another card.'],
  [/abandon|cancel/i, 'The payment was cancelled on the payment page. Nothing was charged.'],
  [/expired/i, 'The card has expired. Use another card.'],
  [/insufficient/i, 'The card has insufficient funds. Use another card.'],
];

export function describeFailure(reason: string | undefined): string {
  const text = (reason ?? '').replace(/^The gateway refused the payment:\s*/i, '').trim();
  if (!text) return 'The payment did not go through. Nothing was charged; you can try again.';
  const hint = KNOWN.find(([pattern]) => pattern.test(text))?.[1];
  return hint ? `${hint} (${text})` : `The payment did not go through: ${text}`;
}
