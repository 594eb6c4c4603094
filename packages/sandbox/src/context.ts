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

let lastMs = Number.NaN;
let lastIso = '';

/** ISO string of a timestamp; the last one is cached because busy request paths ask for the same ms often. */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
