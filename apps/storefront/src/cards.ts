import type { CardInput } from './stores/types';
import { FieldError } from './stores/types';

/** Checks typed card fields before they leave the page; errors name the field to mark. */
export function validateCard(card: CardInput): CardInput {
  const cardNo = card.cardNo.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(cardNo))
    throw new FieldError('cardNo', 'Enter the 13 to 19 digits of the card number');
  if (!luhnValid(cardNo)) throw new FieldError('cardNo', 'This card number is not valid; check for typos');
  const expMonth = card.expMonth.trim().padStart(2, '0');
  if (!/^(0[1-9]|1[0-2])$/.test(expMonth)) throw new FieldError('expMonth', 'Month must be 01 to 12');
  const expYear = card.expYear.trim().length === 2 ? `20${card.expYear.trim()}` : card.expYear.trim();
  if (!/^\d{4}$/.test(expYear)) throw new FieldError('expYear', 'Enter the year as YYYY');
  const now = new Date();
  const expired =
    Number(expYear) < now.getFullYear() ||
    (Number(expYear) === now.getFullYear() && Number(expMonth) < now.getMonth() + 1);
  if (expired) throw new FieldError('expYear', 'This card has expired');
  if (!/^\d{3,4}$/.test(card.cvc.trim())) throw new FieldError('cvc', 'Security code is 3 or 4 digits');
  return { cardNo, expMonth, expYear, cvc: card.cvc.trim() };
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}
