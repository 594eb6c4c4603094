import { randomUUID } from 'node:crypto';

/**
 * A fresh shopper email, `${prefix}-<uuid>@example.com`, whose UUID digits are mapped to letters
 * (0 → g … 9 → p). A run of a UUID's digits can be Luhn-valid, and the store rightly refuses
 * a Luhn-valid digit run anywhere in a request as card data, so a random email must carry no digits.
 */
export function uniqueEmail(prefix: string): string {
  const id = randomUUID().replace(/\d/g, (d) => String.fromCharCode(103 + Number(d)));
  return `${prefix}-${id}@example.com`;
}
