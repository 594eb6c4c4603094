/**
 * Which gateway payment method a shopper may be charged with (docs/card-element.md). The storefront hands
 * in a `customerPaymentMethodId` — made by the gateway's card element, or one of the shopper's saved
 * cards — and both platforms ask this one rule before anything is charged: the id is hostile input, and a
 * method attached to another customer is never charged.
 */
import type { GatewayClient } from './client.js';
import { GatewayBadRequestError } from './errors.js';
import type { PaymentOutcome } from './outcome.js';
import type { PaymentSource } from './payment-flow.js';
import type { CreatePaymentMethodRequest, PaymentMethod } from './schemas/payment-methods.js';

export interface CardShopper {
  /** The logged-in shopper's gateway customer; absent for a guest (or a customer with none yet). */
  gatewayCustomerId?: string | undefined;
}

/** A card to attach to the shopper's gateway customer once a charge succeeded without a redirect. */
export interface CardToKeep {
  customerPaymentMethodId: string;
  customerId: string;
}

export type CardMethodRefusal = {
  ok: false;
  code: 'CARD_NOT_FOUND' | 'CARD_NOT_YOURS' | 'SAVE_NEEDS_LOGIN';
  /** The storefront field at fault, in the platform-neutral name. */
  field: 'customerPaymentMethodId' | 'saveCard';
  message: string;
};

export type CardMethodDecision =
  | {
      ok: true;
      source: Extract<PaymentSource, { kind: 'saved-card' }>;
      /** Set when the shopper asked to save a fresh element card. */
      keep?: CardToKeep | undefined;
      /** The card's last four digits, when the gateway's record has them. */
      last4?: string | undefined;
    }
  | CardMethodRefusal;

const refuse = (
  code: CardMethodRefusal['code'],
  field: CardMethodRefusal['field'],
  message: string,
): CardMethodRefusal => ({ ok: false, code, field, message });

/**
 * The rule on a method already read at the gateway (`undefined`: the gateway has no such method for this
 * merchant — a method made under another merchant's token is one of those).
 */
export function decideCardMethod(
  method: PaymentMethod | undefined,
  shopper: CardShopper,
  save: boolean,
): CardMethodDecision {
  if (!method) {
    return refuse('CARD_NOT_FOUND', 'customerPaymentMethodId', 'no such card for this store at the gateway');
  }
  const id = method.customerPaymentMethodId;
  const owner = method.customerId ? method.customerId : undefined;
  const last4 = method.card?.last4 ?? undefined;
  if (owner) {
    // Attached cards are only ever charged for the customer they belong to; a guest has none.
    if (owner !== shopper.gatewayCustomerId) {
      return refuse('CARD_NOT_YOURS', 'customerPaymentMethodId', 'this card belongs to another customer');
    }
    return {
      ok: true,
      source: { kind: 'saved-card', customerPaymentMethodId: id, customerId: owner },
      last4,
    };
  }
  if (!save) return { ok: true, source: { kind: 'saved-card', customerPaymentMethodId: id }, last4 };
  const customerId = shopper.gatewayCustomerId;
  if (!customerId) return refuse('SAVE_NEEDS_LOGIN', 'saveCard', 'log in to save a card');
  // customerId on the charge binds the card at the gateway; the attach after a direct success makes sure.
  return {
    ok: true,
    source: { kind: 'saved-card', customerPaymentMethodId: id, customerId },
    keep: { customerPaymentMethodId: id, customerId },
    last4,
  };
}

/**
 * One checkout's claim on fresh element cards (docs/card-element.md#one-checkout-per-element-card), kept
 * by the adapter in the shared database so that every instance sees one answer. A checkout is what one
 * payment is for: Medusa's payment collection, Vendure's order.
 */
export interface ElementCardCheckout {
  /**
   * Binds the method to this checkout unless it is bound already, atomically (two first uses at once:
   * one wins); true when it is bound to this checkout.
   */
  bindElementCard(customerPaymentMethodId: string): Promise<boolean>;
}

/**
 * Reads the method at the gateway and decides. A logged-in shopper's own cards are found in their list
 * at the gateway: the documented method structure names no owner (docs/card-element.md#who-owns-a-card),
 * so a record without one proves nothing. Any other method is read by id; a fresh element card (attached
 * to nobody, as far as this store can tell) is charged only for the checkout that first named it:
 * element ids are not secret (time-based), so whoever learns or guesses one must not charge, or save,
 * someone else's card with it. Throws only when the gateway or the bindings could not be asked
 * (network, credentials, database): nothing is charged then, and the shopper may try again.
 */
export async function resolveCardMethod(
  client: GatewayClient,
  customerPaymentMethodId: string,
  shopper: CardShopper,
  save: boolean,
  checkout: ElementCardCheckout,
  /**
   * `ownCardsFirst: false` where the field mostly names cards fresh from the element (Vendure's
   * `elementPaymentMethodId`; saved cards have their own field): the shopper's list is asked only when
   * the card turns out bound to another checkout (their own saved card), so a new card costs one call.
   */
  { ownCardsFirst = true }: { ownCardsFirst?: boolean } = {},
): Promise<CardMethodDecision> {
  const owned = ownCardsFirst ? await ownCardOf(client, customerPaymentMethodId, shopper) : undefined;
  if (owned) return decideCardMethod(owned, shopper, save);
  let method: PaymentMethod | undefined;
  try {
    method = await client.paymentMethods.retrieve(customerPaymentMethodId);
  } catch (error) {
    // The gateway's "does not exist" is a parameter refusal (P0002).
    if (!(error instanceof GatewayBadRequestError)) throw error;
  }
  const decision = decideCardMethod(method, shopper, save);
  if (!decision.ok || method?.customerId) return decision;
  // The id the charge will carry is the gateway's own (decision.source), not the spelling the
  // storefront sent: that one is bound, so no other spelling of the same card gets a binding of its own.
  if (!(await checkout.bindElementCard(decision.source.customerPaymentMethodId))) {
    const own = ownCardsFirst ? undefined : await ownCardOf(client, customerPaymentMethodId, shopper);
    if (own) return decideCardMethod(own, shopper, save);
    return refuse(
      'CARD_NOT_YOURS',
      'customerPaymentMethodId',
      'this card was entered for another checkout; enter it again here',
    );
  }
  return decision;
}

/**
 * The shopper's own card of this id, from their list at the gateway, with them as its owner (the list
 * items may name none); undefined for a guest, or a card not in the list.
 */
async function ownCardOf(
  client: GatewayClient,
  customerPaymentMethodId: string,
  shopper: CardShopper,
): Promise<PaymentMethod | undefined> {
  const customerId = shopper.gatewayCustomerId;
  if (!customerId) return undefined;
  let listed: PaymentMethod[];
  try {
    listed = await client.paymentMethods.list(customerId);
  } catch (error) {
    // Refused as asked (a customer this account does not know): none of its cards are the shopper's.
    if (error instanceof GatewayBadRequestError) return undefined;
    throw error;
  }
  const own = listed.find((method) => method.customerPaymentMethodId === customerPaymentMethodId);
  return own ? { ...own, customerId } : undefined;
}

export type KeptCard = 'attached' | 'not-asked' | 'not-paid' | 'failed';

/**
 * Attaches a saved element card after its charge succeeded without a redirect (a redirect's charge carried
 * the customerId, which binds it). A failed attach never touches the payment: the card is simply not kept.
 */
export async function keepElementCard(
  client: GatewayClient,
  decision: CardMethodDecision,
  outcome: PaymentOutcome,
): Promise<KeptCard> {
  if (!decision.ok || !decision.keep) return 'not-asked';
  if (outcome.status !== 'succeeded') return 'not-paid';
  try {
    await client.paymentMethods.attach(decision.keep.customerPaymentMethodId, decision.keep.customerId);
    return 'attached';
  } catch {
    return 'failed';
  }
}

/**
 * Where a store retires the saved cards that are no fresh element card, and never may be taken for one
 * (docs/card-element.md#a-removed-saved-card): bound for good to no checkout, in the same table as
 * element-card bindings. The cards it removes, and the cards it saves from card data.
 */
export interface RetiredCards {
  retire(customerPaymentMethodId: string): Promise<void>;
  /**
   * Retires each of these cards that is bound to no checkout yet, in one statement; a card already
   * bound keeps its binding. For a customer's listed saved cards (docs/card-element.md#who-owns-a-card).
   */
  retireUnbound(customerPaymentMethodIds: readonly string[]): Promise<void>;
}

/**
 * Saves a card from card data (stores allowed to take it) for the customer the request names, then
 * retires it for checkouts: the gateway's record of a method may name no owner (docs/card-element.md#who-owns-a-card),
 * and a card never bound would pass for a fresh element card at the first checkout to name its id. A
 * retirement that cannot be stored is tried once more, then the save fails with the card left attached
 * to its owner: detached, it would be attached to nobody and bound to nothing, a fresh element card to
 * anyone who names it; attached, it stays in its owner's list, where removing it retires it.
 */
export async function saveCardData(
  client: Pick<GatewayClient, 'paymentMethods'>,
  request: CreatePaymentMethodRequest & { customerId: string },
  retired: Pick<RetiredCards, 'retire'>,
): Promise<PaymentMethod> {
  const saved = await client.paymentMethods.create(request);
  const id = saved.customerPaymentMethodId;
  await retired.retire(id).catch(() => retired.retire(id));
  return saved;
}

/**
 * Removes a saved card: retired first, then detached at the gateway. Detached, it is attached to nobody,
 * which is what a fresh element card looks like: without the retirement the first checkout to name its
 * id (ids are not secret) could charge it, or save it as its own. A detach that fails after the
 * retirement leaves the card its owner's, and no other checkout's.
 */
export async function removeSavedCard(
  client: Pick<GatewayClient, 'paymentMethods'>,
  customerPaymentMethodId: string,
  retired: Pick<RetiredCards, 'retire'>,
): Promise<void> {
  await retired.retire(customerPaymentMethodId);
  await client.paymentMethods.detach(customerPaymentMethodId);
}
