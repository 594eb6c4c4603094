import { type CheckoutFlow, normalizeLocalPaymentMethod } from '@gatewaykit/core';

/** The validated, typed form of one PaymentMethod's handler arguments. */
export interface MethodConfig {
  gatewayNo: string;
  signKey: string;
  /** Either a preset environment or an explicit base URL (e.g. the sandbox). */
  target: { environment: 'test' | 'live' } | { baseUrl: string };
  mode: CheckoutFlow;
  /** Gateway name of the local method (mode `local` only). */
  localMethod?: string;
}

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
  const gatewayNo = (raw.gatewayNo ?? '').trim();
  const signKey = (raw.signKey ?? '').trim();
  const environment = (raw.environment ?? 'test').trim() || 'test';
  const baseUrl = (raw.baseUrl ?? '').trim();
  const mode = (raw.mode ?? 'hosted').trim() || 'hosted';
  const localRaw = (raw.localMethod ?? '').trim();

  if (!/^\d{1,20}$/.test(gatewayNo)) problems.push('gatewayNo must be the numeric gateway number');
  if (signKey.length < 8) problems.push('signKey is missing or too short');
  if (mode !== 'card' && mode !== 'hosted' && mode !== 'local') {
    problems.push(`mode must be card, hosted or local (got "${mode}")`);
  }
  let target: MethodConfig['target'] | undefined;
  if (environment === 'custom' || baseUrl) {
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl))
      problems.push('baseUrl must be an http(s) URL when environment is custom');
    else target = { baseUrl: baseUrl.replace(/\/+$/, '') };
  } else if (environment === 'test' || environment === 'live') {
    target = { environment };
  } else {
    problems.push(`environment must be test, live or custom (got "${environment}")`);
  }
  let localMethod: string | undefined;
  if (mode === 'local') {
    localMethod = localRaw ? normalizeLocalPaymentMethod(localRaw) : undefined;
    if (!localMethod) problems.push(`localMethod "${localRaw}" is not a local payment method of the gateway`);
  }
  if (problems.length > 0 || !target) {
    throw new MethodConfigError(`Invalid gateway payment method settings: ${problems.join('; ')}`);
  }
  return { gatewayNo, signKey, target, mode: mode as CheckoutFlow, ...(localMethod ? { localMethod } : {}) };
}

/** Handler args are stored as `{name, value}[]` on the PaymentMethod entity. */
export function argsToRecord(args: ReadonlyArray<{ name: string; value: string }>): RawArgs {
  return Object.fromEntries(args.map((a) => [a.name, a.value]));
}
