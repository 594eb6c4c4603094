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

export function redactText(text: string): string {
  return text
    .replace(PAN_IN_TEXT, '$1***$2')
    .replace(/("(?:cardSecurityCode|cvv|cvc|securityCode)"\s*:\s*)"[^"]*"/gi, '$1"***"');
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

/** A request body for the log: parsed and redacted when it is JSON, text-redacted otherwise. */
export function redactBody(raw: string): unknown {
  if (raw.length === 0) return undefined;
  try {
    return redact(JSON.parse(raw));
  } catch {
    return redactText(raw.slice(0, 4000));
  }
}
