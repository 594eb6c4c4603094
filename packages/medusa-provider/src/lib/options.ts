import {
  CHARGEBACK_LOOKBACK_DAYS,
  chargebackLookbackMs,
  type GatewayConfig,
  LOCAL_PAYMENT_METHODS,
  normalizeLocalPaymentMethod,
  parseGatewayConfig,
} from '@gatewaykit/core';

/**
 * Options of the gatewaykit providers, given once in medusa-config.ts and shared by the three services.
 * The gateway settings (gatewayNo, signKey, environment or baseUrl, timeoutMs) are core's GatewayConfig,
 * checked by core's rules; the signKey is server-side only: never copied into session, payment or
 * account-holder data.
 */
export type GatewaykitOptions = GatewayConfig & MedusaOptions;

interface MedusaOptions {
  /** Public URL of this Medusa server; the gateway posts callbacks and returns shoppers here. */
  backendUrl: string;
  /** Storefront page the shopper lands on after the gateway's page, with `cart_id` and `outcome` added. */
  storefrontReturnUrl: string;
  /** Shop domain reported to the gateway (webSite). Defaults to the storefront's host. */
  webSite?: string;
  /** Only for PCI-compliant merchants: lets the store route send raw card data to save a card. */
  allowRawCardData?: boolean;
  /** Local payment method used when the storefront does not choose one in the session data. */
  localPaymentMethod?: string;
  /**
   * `gateway` (default): an admin refund is sent to the gateway's refund API; `manual`: refunds are
   * made in the gateway's merchant portal and an admin refund is refused.
   */
  refunds?: RefundMode;
  /** How long a sent payment may wait for its answer before the reconciliation job asks the gateway. */
  reconcileAfterSeconds?: number;
  /**
   * How long after sending a payment the gateway's having no record of it means nothing was charged
   * (the attempt then ends failed).
   */
  failUnrecordedAfterSeconds?: number;
  /**
   * How many days back each reconciliation run lists the gateway's chargebacks: whole days from 0 to 366,
   * default 180. 0 turns that pass off, for a merchant account without access to the chargeback list
   * (docs/gateway-protocol.md#chargebacks-in-each-run).
   */
  chargebackLookbackDays?: number;
  /**
   * How long after a refund whose record was lost was sent an administrator may close it as not made
   * (`POST /admin/gatewaykit/refunds/close` with `made: false`); default 24 hours. It may still be under
   * way at the gateway and not shown in the merchant portal yet: closed too early, the same money could
   * be refunded again.
   */
  notMadeCloseAfterSeconds?: number;
  /**
   * Keep each verified status callback on Medusa's event bus and answer the gateway at once; a
   * subscriber (the worker, in production) records it (lib/kept-callbacks.ts). Default false: recorded
   * in the request. Turn it on only with a durable event bus (`@medusajs/medusa/event-bus-redis`).
   */
  recordCallbacksInWorker?: boolean;
}

export const REFUND_MODES = ['gateway', 'manual'] as const;
export type RefundMode = (typeof REFUND_MODES)[number];

/** Ten minutes: the gateway's first callback retries are over by then (docs/callbacks-and-returns.md#retry-schedule). */
export const DEFAULT_RECONCILE_AFTER_SECONDS = 600;
/** A day: a refund the gateway is still carrying out has had its time to show in the merchant portal. */
export const DEFAULT_NOT_MADE_CLOSE_AFTER_SECONDS = 24 * 60 * 60;
/** Core's reconciliation default (DEFAULT_PENDING_AFTER_MS). */
export const DEFAULT_FAIL_UNRECORDED_AFTER_SECONDS = 1800;

/** The reconciliation's two waits of an account, in milliseconds, defaults applied. */
export function reconcileWaitsMs(options: GatewaykitOptions): {
  reconcileAfterMs: number;
  failUnrecordedAfterMs: number;
} {
  return {
    reconcileAfterMs: (options.reconcileAfterSeconds ?? DEFAULT_RECONCILE_AFTER_SECONDS) * 1000,
    failUnrecordedAfterMs:
      (options.failUnrecordedAfterSeconds ?? DEFAULT_FAIL_UNRECORDED_AFTER_SECONDS) * 1000,
  };
}

/** Every problem in one error, each naming its option. */
function failWith(issues: readonly { path: string; message: string }[]): never {
  const problems = issues.map((issue) => `invalid option "${issue.path}": ${issue.message}`);
  throw new Error(`@gatewaykit/medusa-provider: ${problems.join('; ')}`);
}

function fail(option: string, problem: string): never {
  failWith([{ path: option, message: problem }]);
}

function positiveSeconds(option: string, value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const seconds = typeof value === 'string' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
    fail(option, 'must be a positive number of seconds');
  }
  return seconds;
}

function lookbackDays(value: unknown): number {
  if (value === undefined || value === null || value === '') return CHARGEBACK_LOOKBACK_DAYS;
  // Digits only from the environment: a blank or a sign is never 0 days.
  const days = typeof value === 'string' ? (/^\d+$/.test(value.trim()) ? Number(value) : Number.NaN) : value;
  try {
    chargebackLookbackMs(days);
  } catch (error) {
    fail('chargebackLookbackDays', (error as Error).message.replace(/^chargebackLookbackDays /, ''));
  }
  return days as number;
}

function refundMode(value: unknown): RefundMode {
  if (value === undefined) return 'gateway';
  if (!REFUND_MODES.includes(value as RefundMode)) {
    fail(
      'refunds',
      'must be "gateway" (admin refunds go through the gateway\'s refund API) or "manual" (refund in the gateway\'s merchant portal)',
    );
  }
  return value as RefundMode;
}

function httpUrl(option: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') fail(option, 'is required (an http(s) URL)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(option, `"${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(option, 'must be an http(s) URL');
  return value.replace(/\/+$/, '');
}

/** A switch given as a boolean, or as `true`/`false` read from the environment; absent is false. */
function flag(option: string, value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true';
  fail(option, 'must be true or false');
}

/** Checks the options at startup (Medusa calls validateOptions before registering the providers). */
export function parseOptions(raw: unknown): GatewaykitOptions {
  const options = (raw ?? {}) as Record<string, unknown>;
  const gateway = parseGatewayConfig(options);
  if (!gateway.ok) failWith(gateway.issues);
  const localPaymentMethod = options.localPaymentMethod;
  if (localPaymentMethod !== undefined && !normalizeLocalPaymentMethod(String(localPaymentMethod))) {
    fail('localPaymentMethod', `must be one of ${LOCAL_PAYMENT_METHODS.join(', ')}`);
  }
  const storefrontReturnUrl = httpUrl('storefrontReturnUrl', options.storefrontReturnUrl);
  return {
    ...gateway.config,
    backendUrl: httpUrl('backendUrl', options.backendUrl),
    storefrontReturnUrl,
    webSite:
      typeof options.webSite === 'string' && options.webSite
        ? options.webSite
        : new URL(storefrontReturnUrl).host,
    allowRawCardData: options.allowRawCardData === true,
    refunds: refundMode(options.refunds),
    reconcileAfterSeconds: positiveSeconds(
      'reconcileAfterSeconds',
      options.reconcileAfterSeconds,
      DEFAULT_RECONCILE_AFTER_SECONDS,
    ),
    failUnrecordedAfterSeconds: positiveSeconds(
      'failUnrecordedAfterSeconds',
      options.failUnrecordedAfterSeconds,
      DEFAULT_FAIL_UNRECORDED_AFTER_SECONDS,
    ),
    chargebackLookbackDays: lookbackDays(options.chargebackLookbackDays),
    notMadeCloseAfterSeconds: positiveSeconds(
      'notMadeCloseAfterSeconds',
      options.notMadeCloseAfterSeconds,
      DEFAULT_NOT_MADE_CLOSE_AFTER_SECONDS,
    ),
    recordCallbacksInWorker: flag('recordCallbacksInWorker', options.recordCallbacksInWorker),
    ...(localPaymentMethod ? { localPaymentMethod: String(localPaymentMethod) } : {}),
  };
}
