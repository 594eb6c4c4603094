export type StoreName = 'medusa' | 'vendure';

/** Sandbox test cards the journeys use. */
export { TEST_CARD_NUMBERS as CARDS } from '@gatewaykit/sandbox';

/** The card payment method each store records (Medusa provider id, Vendure payment method code). */
export const CARD_METHOD = { medusa: 'pp_gatewaykit_gatewaykit', vendure: 'gatewaykit-card' } as const;
