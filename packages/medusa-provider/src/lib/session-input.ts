import {
  type CheckoutFlow,
  localMethodInput,
  parseStorefrontInput,
  savedCardIdInput,
} from '@gatewaykit/core';
import { z } from 'zod';
import { toMedusaError } from './medusa-errors';
import type { BuyerDetails } from './session-data';

/**
 * What a storefront may put in a gatewaykit payment session's `data`, per provider (docs/SECURITY.md).
 * Everything else (outcome, attemptedAt, redirectUrl, buyer, card data, …) is refused with a 400 before
 * Medusa stores the session, because Medusa stores the storefront's data as given.
 */
const STOREFRONT_INPUT = {
  card: z.strictObject({
    customerPaymentMethodId: savedCardIdInput.optional(),
    /** Keep the element's card as a saved card of the logged-in customer (true or false, nothing else). */
    saveCard: z.boolean('must be true or false').optional(),
  }),
  hosted: z.strictObject({}),
  local: z.strictObject({ localMethod: localMethodInput.optional() }),
} satisfies Record<CheckoutFlow, z.ZodType>;

/**
 * Gateway payment-method ids are long digit strings that can pass the Luhn check; the schema's id
 * pattern checks them, and the gateway's record of the method decides whether it may be charged
 * (core's resolveCardMethod, when the session is created and again right before the charge).
 */
const ID_FIELDS = ['customerPaymentMethodId'];

export type StorefrontSessionInput = {
  customerPaymentMethodId?: string;
  saveCard?: boolean;
  localMethod?: string;
};

const PROVIDER_MODES: [prefix: string, mode: CheckoutFlow][] = [
  ['pp_gatewaykit-hosted_', 'hosted'],
  ['pp_gatewaykit-local_', 'local'],
  ['pp_gatewaykit_', 'card'],
];

/** The gatewaykit mode of a Medusa provider id (`pp_gatewaykit-hosted_<id>` → hosted), or undefined. */
export function modeOfProvider(providerId: string): CheckoutFlow | undefined {
  return PROVIDER_MODES.find(([prefix]) => providerId.startsWith(prefix))?.[1];
}

/** Parses the storefront's session data for a provider; a MedusaError (400) names each refused field. */
export function parseSessionInput(mode: CheckoutFlow, data: unknown): StorefrontSessionInput {
  try {
    return parseStorefrontInput(
      STOREFRONT_INPUT[mode],
      data ?? {},
      'payment session data',
      'data',
      ID_FIELDS,
    );
  } catch (error) {
    throw toMedusaError(error, 'gatewaykit');
  }
}

/** Cart details the plugin's middleware copies into `buyer`; bounded, since a bypassed middleware makes them input. */
const address = z.strictObject({
  line1: z.string().max(500),
  line2: z.string().max(500).optional(),
  city: z.string().max(100),
  country: z.string().regex(/^[A-Z]{2}$/),
  state: z.string().max(50).optional(),
  postalCode: z.string().max(30).optional(),
});
const buyer = z.strictObject({
  email: z.string().max(200),
  firstName: z.string().max(100),
  lastName: z.string().max(100),
  phone: z.string().max(50).optional(),
  billingAddress: address,
  shippingAddress: address.optional(),
  items: z
    .array(
      z.strictObject({
        title: z.string().max(500),
        quantity: z.number().int().positive(),
        unitPrice: z.string().max(20),
      }),
    )
    .max(1000)
    .optional(),
  ip: z.string().max(64).optional(),
});

/** What initiatePayment receives: the storefront's keys, plus Medusa's session_id and the middleware's buyer. */
const serverKeys = { session_id: z.string().max(100).optional(), buyer: buyer.optional() };
const INITIATE_INPUT = {
  card: STOREFRONT_INPUT.card.extend(serverKeys),
  hosted: STOREFRONT_INPUT.hosted.extend(serverKeys),
  local: STOREFRONT_INPUT.local.extend(serverKeys),
} satisfies Record<CheckoutFlow, z.ZodType>;

/** Parses initiatePayment's data (second line of defence behind the route middleware). */
export function parseInitiateInput(
  mode: CheckoutFlow,
  data: unknown,
): StorefrontSessionInput & { session_id?: string; buyer?: BuyerDetails } {
  try {
    return parseStorefrontInput(
      INITIATE_INPUT[mode],
      data ?? {},
      'payment session data',
      'data',
      ID_FIELDS,
    ) as StorefrontSessionInput & {
      session_id?: string;
      buyer?: BuyerDetails;
    };
  } catch (error) {
    throw toMedusaError(error, 'gatewaykit');
  }
}
