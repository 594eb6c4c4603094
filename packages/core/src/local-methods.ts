/**
 * Local (alternative) payment method names the gateway's official plugin sends as `paymentMethod`
 * (docs/gateway-protocol.md#local-payment-methods). The gateway matches them case-insensitively; we send the canonical spelling.
 */
export const LOCAL_PAYMENT_METHODS = [
  'Alipay',
  'WeChatPay',
  'CryptoPayment',
  'directpay',
  'Ebanx',
  'giropay',
  'ideal',
  'p24',
  'paysafecard',
  'Korea Local cards',
  'KAKAOPAY',
  'klarna',
  'bcmc',
  'Dragonpay',
] as const;

export type LocalPaymentMethod = (typeof LOCAL_PAYMENT_METHODS)[number];

const BY_LOWER = new Map<string, LocalPaymentMethod>(
  LOCAL_PAYMENT_METHODS.map((name) => [name.toLowerCase(), name]),
);

/**
 * Canonical spelling of a local method name (case-insensitive, surrounding spaces ignored: for names
 * typed into settings), or undefined when it is not one.
 */
export function normalizeLocalPaymentMethod(name: string): LocalPaymentMethod | undefined {
  return BY_LOWER.get(name.trim().toLowerCase());
}

/** Whether a request's paymentMethod is one of the names as the gateway matches them: any case, nothing else. */
export function isLocalPaymentMethodName(name: string): boolean {
  return BY_LOWER.has(name.toLowerCase());
}

/** The paymentMethod value that selects cards on the hosted checkout page. */
export const CHECKOUT_CARD_METHOD = 'Credit Card';
