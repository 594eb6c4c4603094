import { passesLuhn } from '../../src/index.js';

/** The check digit that makes `body` pass Luhn (core's own check, so the two cannot disagree). */
export function luhnDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit += 1) if (passesLuhn(body + digit)) return String(digit);
  throw new Error('unreachable');
}
