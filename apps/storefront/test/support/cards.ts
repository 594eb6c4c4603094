export type StoreName = 'medusa' | 'vendure';

/** Sandbox test cards the journeys use (packages/sandbox: cards.ts). */
export const CARDS = {
  success: '4242424242424242',
  decline: '4000000000009995',
  challenge: '4000002500003155',
} as const;
