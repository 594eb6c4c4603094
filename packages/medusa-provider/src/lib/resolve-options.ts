import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { type GatewaykitOptions, parseOptions } from './options';

const PROVIDER_PACKAGE = '@gatewaykit/medusa-provider';
let cached: GatewaykitOptions | undefined;

type ProviderEntry = { resolve?: unknown; id?: string; options?: Record<string, unknown> };

/**
 * The routes need the provider's options (sign key, URLs). They are read from the payment module's
 * provider entry in medusa-config, so the merchant configures the gateway in one place only.
 */
export function resolveGatewaykitOptions(scope: MedusaContainer): GatewaykitOptions {
  if (cached) return cached;
  const config = scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE) as { modules?: unknown };
  const modules = config.modules ?? {};
  const entries = (Array.isArray(modules) ? modules : Object.values(modules as Record<string, unknown>)) as {
    options?: { providers?: ProviderEntry[] };
  }[];
  for (const entry of entries) {
    for (const provider of entry?.options?.providers ?? []) {
      if (typeof provider.resolve === 'string' && provider.resolve.startsWith(PROVIDER_PACKAGE)) {
        cached = parseOptions(provider.options);
        return cached;
      }
    }
  }
  throw new Error(
    `${PROVIDER_PACKAGE}: no payment provider entry resolving "${PROVIDER_PACKAGE}/providers/gatewaykit" in medusa-config`,
  );
}
