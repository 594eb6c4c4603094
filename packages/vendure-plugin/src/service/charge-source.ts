import {
  type CardMethodDecision,
  type CardShopper,
  type CheckoutFlow,
  GatewayBadRequestError,
  type PaymentOutcome,
  type PaymentSource,
  type RawCard,
} from '@gatewaykit/core';
import { type PaymentErrorResult, paymentError } from './checkout-result';

/** The card fields of the start-payment input (card methods only). */
export interface CardInput {
  /** A saved card of the logged-in customer. */
  savedCardId?: string | null | undefined;
  /** PCI opt-in only: raw card data, sent to the gateway and never stored. */
  card?: RawCard | null | undefined;
  /** The card element's `customerPaymentMethodId` (docs/card-element.md): hostile until the gateway says whose it is. */
  elementPaymentMethodId?: string | null | undefined;
  /** Keep the element's card for the logged-in customer (gatewaykitSavedCards). */
  saveCard?: boolean | null | undefined;
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
  /** Element card: core's decision, handed to keepElementCard once the charge has an outcome. */
  elementCard?: Extract<CardMethodDecision, { ok: true }>;
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
  /**
   * The logged-in customer's gateway customer id, created first when `create` (saving a card);
   * undefined for a guest, or a customer without one when not creating.
   */
  gatewayCustomerId(create: boolean): Promise<string | undefined>;
  /** Core's resolveCardMethod with the payment method's own client (the account that will charge). */
  resolveCardMethod(id: string, shopper: CardShopper, save: boolean): Promise<CardMethodDecision>;
}

/** Card fields sent to a hosted or local method are refused rather than silently dropped. */
export function misplacedCardInput(flow: CheckoutFlow, input: CardInput): PaymentErrorResult | undefined {
  if (
    flow === 'card' ||
    !(input.card || input.savedCardId || input.elementPaymentMethodId || input.saveCard)
  ) {
    return undefined;
  }
  return paymentError(
    'INVALID_INPUT',
    'Invalid input: card, savedCardId, elementPaymentMethodId and saveCard are only for card payment methods',
  );
}

/**
 * Hosted and local methods charge on the gateway's page. A card method charges the card element's
 * payment method (whose it may be is core's rule, docs/card-element.md), a saved card of the logged-in
 * customer (ownership checked), or raw card data only where the store opted in to PCI scope
 * (docs/SECURITY.md).
 */
export async function chargeSourceFor(
  config: FlowConfig,
  input: CardInput,
  context: ChargeSourceContext,
): Promise<ChargeSource | PaymentErrorResult> {
  if (config.mode === 'hosted') return { source: { kind: 'hosted' } };
  if (config.mode === 'local') return { source: { kind: 'local', method: config.localMethod ?? '' } };
  if (input.elementPaymentMethodId) {
    return elementCardSource(input.elementPaymentMethodId, Boolean(input.saveCard), context);
  }
  if (input.savedCardId) {
    if (!context.loggedIn) return paymentError('NOT_LOGGED_IN', 'Log in to pay with a saved card');
    let owned: OwnedCard | undefined;
    try {
      owned = await context.findOwnedCard(input.savedCardId);
    } catch (error) {
      // The gateway refused the lookup (e.g. a gateway customer another account made): not this
      // customer's card here. Anything else: it could not be asked. Nothing is charged either way.
      if (error instanceof GatewayBadRequestError)
        return paymentError('CARD_NOT_FOUND', 'No such saved card');
      return paymentError(
        'GATEWAY_UNAVAILABLE',
        'The gateway could not check the saved card just now; nothing was charged, please try again',
      );
    }
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
        'This store does not accept card data directly: pay with the card element (elementPaymentMethodId) or a saved card',
      );
    }
    return { source: { kind: 'card-data', card: input.card } };
  }
  return paymentError(
    'CARD_REQUIRED',
    'Card payments need elementPaymentMethodId (the card element) or savedCardId (or card data where allowed)',
  );
}

/** The storefront field core's refusal names, in this API's words. */
const FIELD_NAMES = { customerPaymentMethodId: 'elementPaymentMethodId', saveCard: 'saveCard' } as const;

/**
 * A method from the card element, or any id the storefront claims is one: core reads it at the gateway
 * under this method's account and decides (resolveCardMethod). Nothing is charged on a refusal, and a
 * guest asking to save is refused before the gateway is asked.
 */
async function elementCardSource(
  id: string,
  save: boolean,
  context: ChargeSourceContext,
): Promise<ChargeSource | PaymentErrorResult> {
  if (save && !context.loggedIn) {
    return paymentError('SAVE_NEEDS_LOGIN', 'saveCard: log in to save a card');
  }
  let decision: CardMethodDecision;
  try {
    const gatewayCustomerId = context.loggedIn ? await context.gatewayCustomerId(save) : undefined;
    decision = await context.resolveCardMethod(id, { gatewayCustomerId }, save);
  } catch {
    // The gateway or the element-card bindings could not be asked (network, credentials, database):
    // nothing was charged.
    return paymentError(
      'GATEWAY_UNAVAILABLE',
      'The gateway could not check the card just now; nothing was charged, please try again',
    );
  }
  if (!decision.ok) {
    return paymentError(decision.code, `${FIELD_NAMES[decision.field]}: ${decision.message}`);
  }
  const { source } = decision;
  return {
    source,
    // Only a card that is or becomes the customer's carries their gateway customer on the charge.
    ...(source.customerId ? { gatewayCustomerId: source.customerId } : {}),
    ...(decision.last4 ? { maskCardNo: `***${decision.last4}` } : {}),
    elementCard: decision,
  };
}

/** A success paid with a saved card carries its masked number even when the gateway omits it. */
export function withCardMask(outcome: PaymentOutcome, charge: ChargeSource): PaymentOutcome {
  if (outcome.status !== 'succeeded' || outcome.maskCardNo || !charge.maskCardNo) return outcome;
  return { ...outcome, maskCardNo: charge.maskCardNo };
}
