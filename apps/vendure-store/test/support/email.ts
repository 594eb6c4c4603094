import { randomUUID } from 'node:crypto';

/**
 * A new shopper email address with no digits in it: `${prefix}-<uuid>@example.com`, the UUID's
 * digits mapped to letters (0 → g … 9 → p). The plugin rightly refuses a Luhn-valid run of digits
 * in a request as card data, and a UUID's digit groups can form one.
 */
export function uniqueEmail(prefix: string): string {
  const id = randomUUID().replace(/\d/g, (d) => String.fromCharCode(103 + Number(d)));
  return `${prefix}-${id}@example.com`;
}
