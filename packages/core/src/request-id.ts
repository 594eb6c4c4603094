import { randomUUID } from 'node:crypto';

/**
 * A fresh request-id for every attempt: the gateway answers L0004 to any id seen in the last 30 minutes,
 * so retries must never reuse one. Uppercase 8-4-4-4-12 hex, the form the official SDK v1.4+ sends,
 * and a closing letter (37 ≤ 64 chars): the signature covers gateway-no, request-id and request-time
 * run together, so an id ending in a digit could hand that digit to a request-time written with a
 * leading zero, and a captured request would pass again under a "new" id (docs/signing.md#requests).
 */
export function newRequestId(): string {
  return `${randomUUID().toUpperCase()}R`;
}
