export type StoreName = 'medusa' | 'vendure';

/** Sandbox test cards the journeys use (packages/sandbox: cards.ts). */
export const CARDS = {
  success: '4242424242424242',
  decline: '4000000000009995',
  challenge: '4000002500003155',
} as const;

/** The card payment method each store records (Medusa provider id, Vendure payment method code). */
export const CARD_METHOD = { medusa: 'pp_gatewaykit_gatewaykit', vendure: 'gatewaykit-card' } as const;
