import {
  type CheckoutFlow,
  type GatewayConfig,
  normalizeLocalPaymentMethod,
  parseGatewayConfig,
} from '@gatewaykit/core';

/**
 * The validated, typed form of one PaymentMethod's handler arguments: core's gateway settings (checked
 * by core's rules, as Medusa's options are) plus how this method takes payments.
 */
export type MethodConfig = GatewayConfig & {
  mode: CheckoutFlow;
  /** Gateway name of the local method (mode `local` only). */
  localMethod?: string;
  refunds: RefundMode;
};

/**
 * How Vendure refunds of this method's payments are made: `gateway` sends them to the gateway's refund
 * API (the default), `manual` leaves them Pending for the merchant to refund in the gateway's portal.
 */
export type RefundMode = 'gateway' | 'manual';
export const REFUND_MODES: readonly RefundMode[] = ['gateway', 'manual'];
/** An unset value (methods saved before the argument existed) refunds through the gateway. */
export const DEFAULT_REFUND_MODE: RefundMode = 'gateway';

/** Thrown for unusable handler arguments; the message is shown to the admin. */
export class MethodConfigError extends Error {
  override name = 'MethodConfigError';
}

type RawArgs = Record<string, string | undefined | null>;

/**
 * Validates handler args. Used when a PaymentMethod is saved (so the admin sees the error at once)
 * and again whenever a payment starts (args may have been written straight into the database).
 */
export function parseMethodArgs(raw: RawArgs): MethodConfig {
  const problems: string[] = [];
  // The form's default; an unset value in the database means the same.
  const environment = raw.environment?.trim() || 'test';
  // 'custom' is this form's word for "use baseUrl": core knows only test, live or a base URL. The empty
  // string (not undefined) makes core name a missing baseUrl rather than the environment.
  const custom = environment === 'custom';
  const gateway = parseGatewayConfig({
    gatewayNo: raw.gatewayNo,
    signKey: raw.signKey,
    environment: custom ? undefined : environment,
    baseUrl: custom ? (raw.baseUrl ?? '') : raw.baseUrl,
  });
  if (!gateway.ok) problems.push(...gateway.issues.map((issue) => `${issue.path} ${issue.message}`));

  const mode = raw.mode?.trim() || 'hosted';
  if (mode !== 'card' && mode !== 'hosted' && mode !== 'local') {
    problems.push(`mode must be card, hosted or local (got "${mode}")`);
  }
  let localMethod: string | undefined;
  if (mode === 'local') {
    const localRaw = raw.localMethod?.trim() ?? '';
    localMethod = localRaw ? normalizeLocalPaymentMethod(localRaw) : undefined;
    if (!localMethod) problems.push(`localMethod "${localRaw}" is not a local payment method of the gateway`);
  }
  const refunds = raw.refunds?.trim() || DEFAULT_REFUND_MODE;
  if (!(REFUND_MODES as readonly string[]).includes(refunds)) {
    problems.push(`refunds must be gateway or manual (got "${refunds}")`);
  }
  if (problems.length > 0 || !gateway.ok) {
    throw new MethodConfigError(`Invalid gateway payment method settings: ${problems.join('; ')}`);
  }
  return {
    ...gateway.config,
    mode: mode as CheckoutFlow,
    ...(localMethod ? { localMethod } : {}),
    refunds: refunds as RefundMode,
  };
}

/** Handler args are stored as `{name, value}[]` on the PaymentMethod entity. */
export function argsToRecord(args: ReadonlyArray<{ name: string; value: string }>): RawArgs {
  return Object.fromEntries(args.map((a) => [a.name, a.value]));
}
