/**
 * Test cards. Behaviour is decided from the number at the moment of the request; afterwards only
 * brand, last4, mask and the decided behaviour are kept, never the number or the security code.
 */
export type CardBehaviour = 'success' | 'decline' | 'challenge' | 'pending' | 'challenge-fail' | 'invalid';

export interface TestCard {
  cardNo: string;
  behaviour: CardBehaviour;
  outcome: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { cardNo: '4242424242424242', behaviour: 'success', outcome: 'success (orderStatus success)' },
  {
    cardNo: '4000000000009995',
    behaviour: 'decline',
    outcome: 'declined (orderStatus fail, orderInfo "Card declined")',
  },
  {
    cardNo: '4000002500003155',
    behaviour: 'challenge',
    outcome: '3-D Secure challenge: pending + redirectUrl to the challenge page; its buttons decide',
  },
  {
    cardNo: '4000000000000077',
    behaviour: 'pending',
    outcome: 'pending without redirect; succeeds a little later, reported by callback only',
  },
  {
    cardNo: '4000000000003220',
    behaviour: 'challenge-fail',
    outcome: '3-D Secure challenge whose completion always fails',
  },
];

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.cardNo, card.behaviour]));

export interface CardSummary {
  brand: string;
  last4: string;
  maskCardNo: string;
  behaviour: CardBehaviour;
}

function luhnValid(cardNo: string): boolean {
  let sum = 0;
  for (let i = 0; i < cardNo.length; i++) {
    let digit = cardNo.charCodeAt(cardNo.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function cardBrand(cardNo: string): string {
  if (/^4/.test(cardNo)) return 'Visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(cardNo)) return 'MasterCard';
  if (/^3[47]/.test(cardNo)) return 'AMEX';
  if (/^35/.test(cardNo)) return 'JCB';
  if (/^(6011|65|64[4-9])/.test(cardNo)) return 'Discover';
  if (/^62/.test(cardNo)) return 'UnionPay';
  if (/^3(0[0-5]|[68])/.test(cardNo)) return 'Diners';
  return 'Unknown';
}

/** First six + `***` + last four, as the gateway masks (e.g. `400000***3155`). */
export function maskCardNo(cardNo: string): string {
  return `${cardNo.slice(0, 6)}***${cardNo.slice(-4)}`;
}

/** Any other number: success when it passes the Luhn check (like a real test card), otherwise declined as invalid. */
export function summarizeCard(cardNo: string): CardSummary {
  const behaviour = BY_NUMBER.get(cardNo) ?? (luhnValid(cardNo) ? 'success' : 'invalid');
  return { brand: cardBrand(cardNo), last4: cardNo.slice(-4), maskCardNo: maskCardNo(cardNo), behaviour };
}
