import { randomUUID } from 'node:crypto';

/**
 * A fresh request-id for every attempt: the gateway answers L0004 to any id seen in the last 30 minutes,
 * so retries must never reuse one. Uppercase 8-4-4-4-12 hex, the form the official SDK v1.4+ sends (36 ≤ 64 chars).
 */
export function newRequestId(): string {
  return randomUUID().toUpperCase();
}
