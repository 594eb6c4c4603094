import { chargebackLookbackMs, DEFAULT_PENDING_AFTER_MS, redactedErrorText } from '@gatewaykit/core';
import { type ID, Logger, type RequestContext } from '@vendure/core';
import { loggerCtx } from '../constants';
import type { GatewaykitPluginOptions } from '../types';

export const RECONCILE_DEFAULTS = {
  schedule: '*/10 * * * *',
  afterMs: 15 * 60 * 1000,
  noRecordAfterMs: DEFAULT_PENDING_AFTER_MS,
  batchSize: 200,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  notMadeCloseAfterMs: 24 * 60 * 60 * 1000,
};

export type ReconcileSettings = typeof RECONCILE_DEFAULTS;

/**
 * Refuses a `reconcile` setting that is not a number the runs can use, naming it: a wait or an age that
 * is negative or not a number (an unset environment variable read with Number gives NaN) would make the
 * runs' windows invalid dates and every hand close's wait unknowable; a batch must hold at least one.
 */
export function checkReconcileOptions(options: GatewaykitPluginOptions['reconcile']): void {
  const { afterMs, noRecordAfterMs, maxAgeMs, notMadeCloseAfterMs, batchSize } = options ?? {};
  const durations = { afterMs, noRecordAfterMs, maxAgeMs, notMadeCloseAfterMs };
  for (const [name, value] of Object.entries(durations)) {
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new Error(`GatewaykitPlugin: reconcile.${name} must be a number of milliseconds, 0 or more`);
    }
  }
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new Error('GatewaykitPlugin: reconcile.batchSize must be a whole number, 1 or more');
  }
}

/** The run's settings: the plugin's `reconcile` options over the defaults; the look-back apart. */
export function reconcileSettings(options: GatewaykitPluginOptions): {
  settings: ReconcileSettings;
  /** 0: the chargeback pass is off. */
  chargebackLookbackMs: number;
} {
  const { chargebackLookbackDays, ...reconcile } = options.reconcile ?? {};
  return {
    settings: { ...RECONCILE_DEFAULTS, ...definedOnly(reconcile) },
    chargebackLookbackMs: chargebackLookbackMs(chargebackLookbackDays),
  };
}

export interface ReconcileItem {
  kind: 'attempt' | 'refund' | 'chargeback';
  orderCode: string;
  /**
   * The attempt's orderNo, the refund's batchNo (merTrackNo when it has none), or the chargeback's
   * batchNo.
   */
  reference: string;
  before: string;
  after: string;
  reason: string;
}

/** One run's channel contexts, each read once (undefined: the channel is gone). */
export type ContextOf = (channelId: string) => Promise<RequestContext | undefined>;

/** The channel a run is limited to (the Admin API mutation); every channel when undefined. */
export type OnlyChannel = { channelId: ID } | undefined;

/**
 * A reconciliation item that failed (the report's reason): logged at error level naming the order, as
 * it fails again on every run while the money it is about waits.
 */
export function failed(orderCode: string, what: string, error: unknown): string {
  Logger.error(
    `Order ${orderCode}: reconciliation of ${what} failed: ${redactedErrorText(error)}`,
    loggerCtx,
  );
  return `failed: ${redactedErrorText(error)}`;
}

/** A duration as an order note says it: days, minutes or seconds. */
export function durationText(ms: number): string {
  const [count, unit] =
    ms >= 24 * 60 * 60 * 1000
      ? [Math.round(ms / (24 * 60 * 60 * 1000)), 'day']
      : ms >= 60 * 1000
        ? [Math.round(ms / (60 * 1000)), 'minute']
        : [Math.round(ms / 1000), 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
