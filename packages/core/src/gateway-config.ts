/**
 * The merchant's gateway connection settings, checked by one set of rules for every platform: the
 * Medusa provider's options and the Vendure handler's args both come through parseGatewayConfig, and
 * GatewayClient checks its own options with the same field rules.
 */
import { GATEWAY_HOSTS, OPENAPI_HOSTS } from './codes.js';
import type { ValidationIssue } from './errors.js';

export type GatewayEnvironment = keyof typeof GATEWAY_HOSTS;

/** Where requests go: a preset environment, or any base URL (e.g. the local sandbox). */
export type GatewayTarget =
  | { environment: GatewayEnvironment; baseUrl?: undefined }
  | { baseUrl: string; environment?: undefined };

/** Parsed settings; usable as GatewayClient options as they are. */
export type GatewayConfig = GatewayTarget & {
  gatewayNo: string;
  signKey: string;
  /** Per-attempt timeout of gateway requests. */
  timeoutMs?: number;
};

/** Settings as a merchant wrote them (config file, env vars, admin form): anything may be wrong. */
export interface GatewayConfigInput {
  gatewayNo?: unknown;
  signKey?: unknown;
  environment?: unknown;
  baseUrl?: unknown;
  timeoutMs?: unknown;
}

export type GatewayConfigResult =
  | { ok: true; config: GatewayConfig; issues?: undefined }
  | { ok: false; issues: ValidationIssue[]; config?: undefined };

/** Shortest sign key accepted: issued keys are far longer, so a short one is a copy or paste mistake. */
export const MIN_SIGN_KEY_LENGTH = 8;

export const GATEWAY_NO_RULE = 'must be the merchant gateway number: 1 to 16 letters or digits';
export const ENVIRONMENT_RULE = "must be 'test' or 'live' (or give baseUrl)";
export const BASE_URL_RULE = 'must be an http(s) URL such as https://testpay.asiabill.com';

export function isGatewayNo(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9A-Za-z]{1,16}$/.test(value);
}

export function isGatewayEnvironment(value: unknown): value is GatewayEnvironment {
  return typeof value === 'string' && Object.hasOwn(GATEWAY_HOSTS, value);
}

/** The base URL without trailing slashes, or undefined when it is not an http(s) URL with a host. */
export function normalizeGatewayBaseUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || /\s/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.host) return undefined;
  return value.replace(/\/+$/, '');
}

/** Where a target's requests go, without a trailing slash or the version segment (the client adds it). */
export function gatewayBaseUrlOf(target: GatewayTarget): string {
  const base = target.baseUrl ?? GATEWAY_HOSTS[target.environment as GatewayEnvironment];
  return base.replace(/\/+$/, '').replace(/\/V2022-03$/i, '');
}

/** Where each host's operations go (docs/gateway-protocol.md#hosts-and-url-layout). */
export interface GatewayBaseUrls {
  /** The payment API: the 13 operations of the API document. */
  payment: string;
  /** The OpenAPI host: refunds, transaction and chargeback queries. */
  openapi: string;
}

/**
 * Both base URLs of a target. A preset environment has two hosts; a baseUrl (the sandbox) serves both,
 * except that a preset's own payment host given as baseUrl is that preset, OpenAPI host included.
 */
export function gatewayBaseUrlsOf(target: GatewayTarget): GatewayBaseUrls {
  const payment = gatewayBaseUrlOf(target);
  const environment =
    target.environment ??
    (Object.keys(GATEWAY_HOSTS) as GatewayEnvironment[]).find(
      (name) => GATEWAY_HOSTS[name].toLowerCase() === payment.toLowerCase(),
    );
  return { payment, openapi: environment ? OPENAPI_HOSTS[environment] : payment };
}

// Config files and admin forms leave unset fields empty, and pasted values often carry a newline.
function text(value: unknown): unknown {
  return typeof value === 'string' ? value.trim() : value;
}

function given(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Checks gateway settings and reports every problem, each naming its option. Strings are trimmed; an
 * empty field counts as not set. Exactly one of environment and baseUrl: a store switched to 'live'
 * with a sandbox baseUrl left behind would otherwise keep sending its payments to the sandbox, which
 * approves any card (docs/gateway-protocol.md#hosts-and-url-layout).
 */
export function parseGatewayConfig(input: GatewayConfigInput): GatewayConfigResult {
  const issues: ValidationIssue[] = [];
  const gatewayNo = text(input.gatewayNo);
  const signKey = text(input.signKey);
  const environment = text(input.environment);
  const baseUrlRaw = text(input.baseUrl);
  const timeoutMs = input.timeoutMs;

  if (!isGatewayNo(gatewayNo)) issues.push({ path: 'gatewayNo', message: GATEWAY_NO_RULE });
  if (typeof signKey !== 'string' || signKey.length < MIN_SIGN_KEY_LENGTH) {
    issues.push({
      path: 'signKey',
      message: `must be the merchant sign key (at least ${MIN_SIGN_KEY_LENGTH} characters)`,
    });
  }
  let target: GatewayTarget | undefined;
  if (given(environment) && !isGatewayEnvironment(environment)) {
    issues.push({ path: 'environment', message: ENVIRONMENT_RULE });
  }
  if (given(baseUrlRaw) && isGatewayEnvironment(environment)) {
    issues.push({
      path: 'baseUrl',
      message: `must be left empty when environment is set (${environment}): give one of them, not both`,
    });
  } else if (given(baseUrlRaw)) {
    const baseUrl = normalizeGatewayBaseUrl(baseUrlRaw);
    if (baseUrl) target = { baseUrl };
    else issues.push({ path: 'baseUrl', message: BASE_URL_RULE });
  } else if (isGatewayEnvironment(environment)) {
    target = { environment };
  } else if (!given(environment)) {
    // An empty baseUrl with no environment: a custom target was chosen and its URL left out.
    issues.push(
      baseUrlRaw === ''
        ? { path: 'baseUrl', message: BASE_URL_RULE }
        : { path: 'environment', message: "is required: 'test' or 'live' (or give baseUrl)" },
    );
  }
  if (given(timeoutMs) && !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    issues.push({ path: 'timeoutMs', message: 'must be a positive number of milliseconds' });
  }
  if (issues.length > 0 || !target) return { ok: false, issues };
  return {
    ok: true,
    config: {
      ...target,
      gatewayNo: gatewayNo as string,
      signKey: signKey as string,
      ...(typeof timeoutMs === 'number' ? { timeoutMs } : {}),
    },
  };
}
