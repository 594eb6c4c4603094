import { LOCAL_PAYMENT_METHODS, normalizeLocalPaymentMethod } from '@gatewaykit/core';

/** Options of the gatewaykit providers, given once in medusa-config.ts and shared by the three services. */
export interface GatewaykitOptions {
  /** Merchant gateway number. */
  gatewayNo: string;
  /** Merchant signing key. Server-side only: never copied into session, payment or account-holder data. */
  signKey: string;
  /** `test` or `live` gateway host; ignored when baseUrl is set. */
  environment?: 'test' | 'live';
  /** Any gateway base URL without /V2022-03 (e.g. the local sandbox). */
  baseUrl?: string;
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
  /** Per-attempt timeout of gateway requests. */
  timeoutMs?: number;
}

function fail(option: string, problem: string): never {
  throw new Error(`@gatewaykit/medusa-provider: invalid option "${option}": ${problem}`);
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

/** Checks the options at startup (Medusa calls validateOptions before registering the providers). */
export function parseOptions(raw: unknown): GatewaykitOptions {
  const options = (raw ?? {}) as Record<string, unknown>;
  const gatewayNo = options.gatewayNo;
  if (typeof gatewayNo !== 'string' || !/^[0-9A-Za-z]{1,16}$/.test(gatewayNo)) {
    fail('gatewayNo', 'is required: the merchant gateway number (1 to 16 letters or digits)');
  }
  const signKey = options.signKey;
  if (typeof signKey !== 'string' || signKey.trim().length < 8) {
    fail('signKey', 'is required: the merchant sign key (at least 8 characters)');
  }
  const baseUrl =
    options.baseUrl === undefined || options.baseUrl === '' ? undefined : httpUrl('baseUrl', options.baseUrl);
  const environment = options.environment;
  if (!baseUrl && environment !== 'test' && environment !== 'live') {
    fail('environment', 'must be "test" or "live" (or set baseUrl)');
  }
  const localPaymentMethod = options.localPaymentMethod;
  if (localPaymentMethod !== undefined && !normalizeLocalPaymentMethod(String(localPaymentMethod))) {
    fail('localPaymentMethod', `must be one of ${LOCAL_PAYMENT_METHODS.join(', ')}`);
  }
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0))) {
    fail('timeoutMs', 'must be a positive number of milliseconds');
  }
  const storefrontReturnUrl = httpUrl('storefrontReturnUrl', options.storefrontReturnUrl);
  return {
    gatewayNo,
    signKey,
    ...(baseUrl ? { baseUrl } : { environment: environment as 'test' | 'live' }),
    backendUrl: httpUrl('backendUrl', options.backendUrl),
    storefrontReturnUrl,
    webSite:
      typeof options.webSite === 'string' && options.webSite
        ? options.webSite
        : new URL(storefrontReturnUrl).host,
    allowRawCardData: options.allowRawCardData === true,
    ...(localPaymentMethod ? { localPaymentMethod: String(localPaymentMethod) } : {}),
    ...(typeof timeoutMs === 'number' ? { timeoutMs } : {}),
  };
}
