import type { PaymentAddress, PaymentOutcome } from '@gatewaykit/core';

/** Which flow a session uses; fixed by the provider service that created it. */
export type GatewaykitMode = 'card' | 'hosted' | 'local';

/** Shopper details the plugin's middleware copies from the cart into the session data. */
export interface BuyerDetails {
  email: string;
  firstName: string;
  lastName: string;
  phone?: string | undefined;
  billingAddress: PaymentAddress;
  shippingAddress?: PaymentAddress | undefined;
  items?: { title: string; quantity: number; unitPrice: string }[] | undefined;
  ip?: string | undefined;
}

/**
 * The session's `data`. Medusa returns it in every cart response, so it holds only what the shopper may
 * see: never card numbers, security codes or the sign key (DESIGN §4). The gateway's outcome is stored
 * here because the gateway has no query endpoint: authorizePayment can only read this blob.
 */
export interface GatewaykitSessionData {
  orderNo: string;
  mode: GatewaykitMode;
  /** Gateway orderAmount and currency of this session (authorizePayment gets no amount from Medusa). */
  amount: string;
  currency: string;
  localMethod?: string | undefined;
  customerPaymentMethodId?: string | undefined;
  buyer?: BuyerDetails | undefined;
  /** Set once the money-moving request was sent: authorizePayment never sends a second one. */
  attemptedAt?: string | undefined;
  /** Latest gateway outcome, merged monotonically (a success is never replaced). */
  outcome?: PaymentOutcome | undefined;
  /** Where the shopper must go next (hosted page, local payment page, 3DS challenge). */
  redirectUrl?: string | undefined;
  /** The gateway's message when the payment failed, for the storefront. */
  error?: string | undefined;
}

/** Keys a storefront might send that must never be stored (Medusa stores input data as given). */
const CARD_KEYS = ['cardNo', 'card_number', 'cardNumber', 'cardSecurityCode', 'cvc', 'cvv', 'card'] as const;

export function hasRawCardData(data: Record<string, unknown> | undefined): boolean {
  return CARD_KEYS.some((key) => data?.[key] !== undefined);
}

/** Returned data overrides stored keys, so returning undefined for each card key wipes them. */
export function withoutRawCardData(data: Record<string, unknown>): Record<string, unknown> {
  const clean: Record<string, unknown> = { ...data };
  for (const key of CARD_KEYS) clean[key] = undefined;
  return clean;
}

export function readSessionData(data: Record<string, unknown> | undefined): Partial<GatewaykitSessionData> {
  return (data ?? {}) as Partial<GatewaykitSessionData>;
}

/** Session data after an outcome: keeps the public summary fields in step with the outcome. */
export function withOutcome(
  data: Partial<GatewaykitSessionData>,
  outcome: PaymentOutcome,
): Partial<GatewaykitSessionData> {
  return {
    ...data,
    outcome,
    redirectUrl: outcome.status === 'redirect' ? outcome.redirectUrl : data.redirectUrl,
    error: outcome.status === 'failed' ? outcome.reason : undefined,
  };
}
