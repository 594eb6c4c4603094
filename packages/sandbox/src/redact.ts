/**
 * Redaction for everything the sandbox shows or logs: card numbers become first6***last4 and
 * security codes disappear, whatever field or form they arrive in.
 */
const SECRET_KEYS = /^(cardSecurityCode|cvv|cvc|securityCode)$/i;
const CARD_KEYS = /^(cardNo|cardNumber|pan)$/i;
// A bare 12–19 digit run not glued to a word (ids like cus_1526… and long tradeNos are left alone).
const PAN_IN_TEXT = /(?<![\w])(\d{6})\d{2,9}(\d{4})(?![\w])/g;

function maskDigits(value: string): string {
  const digits = value.replace(/\D/g, '');
  return digits.length >= 10 ? `${digits.slice(0, 6)}***${digits.slice(-4)}` : '***';
}

const CARD_FIELD_IN_TEXT = /("(?:cardNo|cardNumber|pan)"\s*:\s*)"([^"]*)"/gi;
const SECRET_FIELD_IN_TEXT = /("(?:cardSecurityCode|cvv|cvc|securityCode)"\s*:\s*)"[^"]*"/gi;

/** Where a PAN_IN_TEXT match could start: 12 digits not glued to a word. */
const PAN_START = /(?<![\w])\d{12}/;

export function redactText(text: string): string {
  // Both field patterns need a double quote. Text without one (paths, ids, most messages) can only
  // hold a bare card number: one indexOf and one short scan instead of three replace passes.
  if (text.indexOf('"') === -1 && !PAN_START.test(text)) return text;
  return text
    .replace(CARD_FIELD_IN_TEXT, (_, key: string, value: string) => `${key}"${maskDigits(value)}"`)
    .replace(PAN_IN_TEXT, '$1***$2')
    .replace(SECRET_FIELD_IN_TEXT, '$1"***"');
}

export function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (SECRET_KEYS.test(key)) out[key] = '***';
      else if (CARD_KEYS.test(key)) out[key] = typeof inner === 'string' ? maskDigits(inner) : '***';
      else out[key] = redact(inner);
    }
    return out;
  }
  return value;
}

/**
 * A request body for the log: the text as received (so the log shows exactly what the client sent),
 * with card numbers masked and security codes replaced before it is stored. Capped at 8 kB.
 */
export function redactBody(raw: string): string | undefined {
  if (raw.length === 0) return undefined;
  return redactText(raw.length > 8192 ? `${raw.slice(0, 8192)}…` : raw);
}
