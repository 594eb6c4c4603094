import type { Order } from '@vendure/core';

/**
 * The order objects Vendure is moving through its state machine (marked by the stale-transition guard,
 * which every transition passes): their saves may change the state and what placing the order sets.
 * Weak: an object goes with its request.
 */
const inTransition = new WeakSet<Order>();

export function markInTransition(order: Order): void {
  inTransition.add(order);
}

export function isInTransition(order: Order): boolean {
  return inTransition.has(order);
}
