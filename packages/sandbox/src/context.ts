/** What operation handlers, hosted pages and the control API share. */
import type { CallbackEngine } from './callbacks.js';
import type { VirtualClock } from './clock.js';
import type { FaultRegistry } from './faults.js';
import type { Merchant, RequestIdRegistry } from './signature-check.js';
import type { SandboxStore } from './store.js';

export interface SandboxContext {
  store: SandboxStore;
  clock: VirtualClock;
  callbacks: CallbackEngine;
  faults: FaultRegistry;
  requestIds: RequestIdRegistry;
  merchants: ReadonlyMap<string, Merchant>;
  /** Base of the redirect URLs handed out (publicUrl option, or the listening URL). */
  publicUrl: () => string;
  /** Virtual delay before a pending (4000000000000077) order succeeds. */
  pendingDelayMs: number;
  /** Factor compressing virtual waits (callback retries, pending settlement) into real time. */
  timeScale: number;
}

/** Times are shown as ISO strings of the virtual clock. */
export function isoNow(context: SandboxContext): string {
  return isoAt(context.clock.now());
}

/**
 * The gateway's timestamp text, `2022-04-26 17:47:18` (docs/callbacks-and-returns.md#event-data), in
 * UTC: customer and payment method `created` (no documented format), trade and refund dates, noticeDate.
 */
export function gatewayTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** Largest time a Date can hold (ECMA-262 TimeClip). */
const MAX_DATE_MS = 8.64e15;
let lastMs = Number.NaN;
let lastIso = '';
let secondStart = Number.NaN;
/** toISOString of the current second without its `000Z` tail, e.g. `2026-01-01T00:00:00.`. */
let secondPrefix = '';

/**
 * ISO string of a timestamp. Busy request paths ask for the same ms often (the last one is kept) and
 * for the same second nearly always: the second's prefix is kept and only the milliseconds appended.
 */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    // Fractional, invalid or out-of-range times (an offset of 0.5 ms, NaN) take Date's own path.
    if (!Number.isInteger(ms) || Math.abs(ms) > MAX_DATE_MS) {
      lastIso = new Date(ms).toISOString();
    } else {
      const second = Math.floor(ms / 1000) * 1000;
      if (second !== secondStart) {
        secondStart = second;
        secondPrefix = new Date(second).toISOString().slice(0, -4);
      }
      const millis = ms - second;
      lastIso = `${secondPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
    }
  }
  return lastIso;
}
