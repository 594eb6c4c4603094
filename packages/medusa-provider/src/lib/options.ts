import {
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
}

/** Every problem in one error, each naming its option. */
function failWith(issues: readonly { path: string; message: string }[]): never {
  const problems = issues.map((issue) => `invalid option "${issue.path}": ${issue.message}`);
  throw new Error(`@gatewaykit/medusa-provider: ${problems.join('; ')}`);
}

function fail(option: string, problem: string): never {
  failWith([{ path: option, message: problem }]);
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
    ...(localPaymentMethod ? { localPaymentMethod: String(localPaymentMethod) } : {}),
  };
}
