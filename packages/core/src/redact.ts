/** Keeps card data out of logs and stored data (DESIGN §4 PCI): PANs masked, security codes and keys removed. */

const PAN = /\b\d(?:[ -]?\d){12,18}\b/g;
const SECRET_KEYS = /^(cardSecurityCode|securityCode|cvv|cvc|cvv2|signKey|sign-info|signInfo)$/i;
const PAN_KEYS = /^(cardNo|cardNumber|pan)$/i;

/** Replaces anything that looks like a card number (13–19 digits, spaces/dashes allowed) by first6***last4. */
export function redactCardNumber(text: string): string {
  return text.replace(PAN, (match) => {
    const digits = match.replace(/\D/g, '');
    return `${digits.slice(0, 6)}***${digits.slice(-4)}`;
  });
}

/** Deep copy of `value` safe to log or store. */
export function redact<T>(value: T): T {
  if (typeof value === 'string') return redactCardNumber(value) as T;
  if (Array.isArray(value)) return value.map((item) => redact(item)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEYS.test(key)) out[key] = '[redacted]';
      else if (PAN_KEYS.test(key) && typeof item === 'string')
        out[key] = redactCardNumber(item.replace(/\D/g, ''));
      else out[key] = redact(item);
    }
    return out as T;
  }
  return value;
}
