import type { CheckoutFlow, PaymentOutcome, PaymentSource, RawCard } from '@gatewaykit/core';
import { type PaymentErrorResult, paymentError } from './checkout-result';

/** The card fields of the start-payment input (card methods only). */
export interface CardInput {
  /** A saved card of the logged-in customer. */
  savedCardId?: string | null | undefined;
  /** PCI opt-in only: raw card data, sent to the gateway and never stored. */
  card?: RawCard | null | undefined;
}

/** The method's flow as the charge source needs it (a parsed method config fits). */
export interface FlowConfig {
  mode: CheckoutFlow;
  localMethod?: string | undefined;
}

/** What the gateway charges (core's PaymentSource) and what a saved card adds to the request. */
export interface ChargeSource {
  source: PaymentSource;
  /** Saved card: the gateway customer the card is attached to. */
  gatewayCustomerId?: string;
  /** Saved card: recorded on the Payment when the gateway's answer leaves it out. */
  maskCardNo?: string;
}

/** A saved card as the charge needs it. */
export interface OwnedCard {
  id: string;
  customerId: string;
  maskCardNo: string;
}

export interface ChargeSourceContext {
  loggedIn: boolean;
  allowRawCardData: boolean;
  /** The card only if it is attached to the active customer (saved-card.service.ts). */
  findOwnedCard(cardId: string): Promise<OwnedCard | undefined>;
}

/** Card fields sent to a hosted or local method are refused rather than silently dropped. */
export function misplacedCardInput(flow: CheckoutFlow, input: CardInput): PaymentErrorResult | undefined {
  if (flow === 'card' || !(input.card || input.savedCardId)) return undefined;
  return paymentError(
    'INVALID_INPUT',
    'Invalid input: card and savedCardId are only for card payment methods',
  );
}

/**
 * Hosted and local methods charge on the gateway's page. A card method charges a saved card of the
 * logged-in customer (ownership checked), or raw card data only where the store opted in to PCI scope
 * (docs/SECURITY.md).
 */
export async function chargeSourceFor(
  config: FlowConfig,
  input: CardInput,
  context: ChargeSourceContext,
): Promise<ChargeSource | PaymentErrorResult> {
  if (config.mode === 'hosted') return { source: { kind: 'hosted' } };
  if (config.mode === 'local') return { source: { kind: 'local', method: config.localMethod ?? '' } };
  if (input.savedCardId) {
    if (!context.loggedIn) return paymentError('NOT_LOGGED_IN', 'Log in to pay with a saved card');
    const owned = await context.findOwnedCard(input.savedCardId);
    if (!owned) return paymentError('CARD_NOT_FOUND', 'No such saved card');
    return {
      source: { kind: 'saved-card', customerPaymentMethodId: owned.id, customerId: owned.customerId },
      gatewayCustomerId: owned.customerId,
      maskCardNo: owned.maskCardNo,
    };
  }
  if (input.card) {
    if (!context.allowRawCardData) {
      return paymentError(
        'RAW_CARD_NOT_ALLOWED',
        'This store does not accept card data directly; use a saved card',
      );
    }
    return { source: { kind: 'card-data', card: input.card } };
  }
  return paymentError('CARD_REQUIRED', 'Card payments need savedCardId (or card data where allowed)');
}

/** A success paid with a saved card carries its masked number even when the gateway omits it. */
export function withCardMask(outcome: PaymentOutcome, charge: ChargeSource): PaymentOutcome {
  if (outcome.status !== 'succeeded' || outcome.maskCardNo || !charge.maskCardNo) return outcome;
  return { ...outcome, maskCardNo: charge.maskCardNo };
}
