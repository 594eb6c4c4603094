/** Identifier formats of the gateway: cus_/pm_ + 19 digits, tradeNo ≤ 32 chars (docs/gateway-protocol.md#identifiers). */
import { randomBytes } from 'node:crypto';

let sequence = 0;
// Starts at a random point so two sandbox runs in one second rarely hand out the same tradeNo.
let tradeSequence = randomBytes(3).readUIntBE(0, 3);

/** 19 digits: 13 of real milliseconds + a 6-digit rolling sequence, unique within one process. */
function nineteenDigits(): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${Date.now()}${String(sequence).padStart(6, '0')}`;
}

export const newCustomerId = (): string => `cus_${nineteenDigits()}`;
export const newPaymentMethodId = (): string => `pm_${nineteenDigits()}`;

/** A card element session token: unguessable (24 random bytes), since it lets a browser create methods. */
export const newSessionToken = (): string => `st_${randomBytes(24).toString('base64url')}`;

/** Like the gateway's example `2022041810092544882449`: yyyyMMddHHmmss + 8 digits (22 chars). */
let stampSecond = Number.NaN;
let stampText = '';

export function newTradeNo(virtualNow: number): string {
  const second = Math.floor(virtualNow / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stampText = new Date(second * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  }
  const stamp = stampText;
  tradeSequence = (tradeSequence + 1) % 100_000_000;
  return `${stamp}${String(tradeSequence).padStart(8, '0')}`;
}

/**
 * Refund and chargeback `batchNo`: no documented form (docs/gateway-protocol.md#identifiers), so a
 * prefix (`R` refund, `CB` chargeback) and a tradeNo-like stamp, never mistaken for a tradeNo.
 */
export function newBatchNo(prefix: 'R' | 'CB', virtualNow: number): string {
  return `${prefix}${newTradeNo(virtualNow)}`;
}

// Random per process so ids from two runs do not look alike; a counter after that (cheap on the hot path).
const shortIdBase = randomBytes(3).toString('hex');
let shortIdSequence = 0;

/** Opaque short id for log entries, deliveries and fault rules. */
export function newShortId(prefix: string): string {
  shortIdSequence++;
  return `${prefix}_${shortIdBase}${shortIdSequence.toString(36)}`;
}
