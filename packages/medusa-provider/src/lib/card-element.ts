import {
  type CardElementSession,
  type GatewayClient,
  gatewayClientFor,
  openCardElement,
  parseStorefrontInput,
  redact,
} from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, MedusaError } from '@medusajs/framework/utils';
import { z } from 'zod';
import { toMedusaError } from './medusa-errors';
import { type GatewaykitAccount, resolveGatewaykitAccounts } from './resolve-options';

/** What a store without raw card data is told when it tries to save a card from card numbers. */
export const SAVE_WITH_THE_CARD_ELEMENT =
  'Saving a card with raw card data is disabled for this store (allowRawCardData is off: only a PCI-compliant merchant may send card numbers). Save the card with the card element instead: POST /store/gatewaykit/card-element for the form, then create the card payment session with data.customerPaymentMethodId and data.saveCard: true; the card is saved when that payment succeeds';

/** The body of POST /store/gatewaykit/card-element: these two keys, nothing else (docs/SECURITY.md). */
const CARD_ELEMENT_INPUT = z.strictObject({
  cart_id: z.string('is required').regex(/^cart_[A-Za-z0-9]{1,60}$/, 'must be a cart id (cart_…)'),
  provider_id: z
    .string('is required')
    .regex(/^pp_[A-Za-z0-9_-]{1,120}$/, 'must be a gatewaykit card provider id (pp_gatewaykit_<id>)'),
});

export type CardElementInput = z.output<typeof CARD_ELEMENT_INPUT>;

/** What the storefront gets: the token and SDK for the card form; the sign key stays on the server. */
export interface CardElementAnswer {
  session_token: string;
  script_url: string;
  /** When the token stops working (core's openCardElement: dated from before it was asked for). */
  expires_at: string;
}

/** The gateway could not issue a token (network, credentials): nothing else happened, try again. */
export class CardElementUnavailableError extends Error {}

/** Parses the route's body; a 400 names each refused field, never its value. */
function parseCardElementInput(body: unknown): CardElementInput {
  try {
    return parseStorefrontInput(CARD_ELEMENT_INPUT, body ?? {}, 'card element request', 'body');
  } catch (error) {
    throw toMedusaError(error, 'gatewaykit');
  }
}

/** The gatewaykit entry whose card provider is `providerId` (`pp_gatewaykit_<entry id>`), if any. */
function cardAccountOf(
  accounts: readonly GatewaykitAccount[],
  providerId: string,
): GatewaykitAccount | undefined {
  return accounts.find((account) => `pp_gatewaykit_${account.id}` === providerId);
}

type CartRow = { id: string; completed_at?: string | Date | null; region_id?: string | null };
type RegionRow = { payment_providers?: ({ id: string; is_enabled?: boolean } | null)[] | null };

/**
 * Issues the card element's session token for a cart (docs/card-element.md). The token comes from the
 * same gatewaykit entry (merchant account) whose card provider will charge the cart's payment session:
 * a payment method made under one account's token is unknown to every other account.
 */
export async function issueCardElement(
  scope: MedusaContainer,
  body: unknown,
  deps: { now?: () => number; clientOf?: (account: GatewaykitAccount) => GatewayClient } = {},
): Promise<CardElementAnswer> {
  const input = parseCardElementInput(body);
  const account = cardAccountOf(resolveGatewaykitAccounts(scope), input.provider_id);
  if (!account) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'body.provider_id: not a gatewaykit card provider of this store (pp_gatewaykit_<id> of a gatewaykit entry in medusa-config)',
    );
  }
  const query = scope.resolve(ContainerRegistrationKeys.QUERY);
  const { data: carts } = await query.graph({
    entity: 'cart',
    fields: ['id', 'completed_at', 'region_id'],
    filters: { id: input.cart_id },
  });
  const cart = carts[0] as CartRow | undefined;
  if (!cart) throw new MedusaError(MedusaError.Types.NOT_FOUND, 'body.cart_id: no such cart');
  if (cart.completed_at) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      'body.cart_id: this cart is completed (its order is placed); the card form is only for an open cart',
    );
  }
  const { data: regions } = cart.region_id
    ? await query.graph({
        entity: 'region',
        fields: ['payment_providers.id', 'payment_providers.is_enabled'],
        filters: { id: cart.region_id },
      })
    : { data: [] };
  const enabled = ((regions[0] as RegionRow | undefined)?.payment_providers ?? []).some(
    (provider) => provider?.id === input.provider_id && provider.is_enabled !== false,
  );
  if (!enabled) {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `body.provider_id: ${input.provider_id} is not enabled in the cart's region`,
    );
  }

  const client = (deps.clientOf ?? ((entry) => gatewayClientFor(entry.options)))(account);
  let opened: CardElementSession;
  try {
    opened = await openCardElement(client, deps.now);
  } catch (error) {
    throw new CardElementUnavailableError(
      `the gateway did not issue a card form token: ${String(redact(error instanceof Error ? error.message : String(error)))}`,
    );
  }
  return {
    session_token: opened.sessionToken,
    script_url: opened.scriptUrl,
    expires_at: opened.expiresAt.toISOString(),
  };
}
