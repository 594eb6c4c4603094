import type { InboundAccount } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { type GatewaykitOptions, parseOptions } from './options';

const PROVIDER_PACKAGE = '@gatewaykit/medusa-provider';

/**
 * One gatewaykit entry of the payment module: its `id` and its merchant account's options. It carries
 * its gateway number and sign key at the top too, as core's InboundAccount, for verifying notifications.
 */
export interface GatewaykitAccount extends InboundAccount {
  id: string;
  options: GatewaykitOptions;
  /** The Medusa provider ids this entry registers (card, hosted, local). */
  providerIds: string[];
}

let cached: GatewaykitAccount[] | undefined;

type ProviderEntry = { resolve?: unknown; id?: string; options?: Record<string, unknown> };

/**
 * Every gatewaykit entry of medusa-config (a store may configure several merchant accounts). The
 * routes verify a callback or return with these credentials, and a notification only ever changes a
 * session of the entry whose credentials verified it (docs/SECURITY.md).
 */
export function resolveGatewaykitAccounts(scope: MedusaContainer): GatewaykitAccount[] {
  if (cached) return cached;
  const config = scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE) as { modules?: unknown };
  const modules = config.modules ?? {};
  const entries = (Array.isArray(modules) ? modules : Object.values(modules as Record<string, unknown>)) as {
    options?: { providers?: ProviderEntry[] };
  }[];
  const accounts: GatewaykitAccount[] = [];
  for (const entry of entries) {
    for (const provider of entry?.options?.providers ?? []) {
      if (typeof provider.resolve === 'string' && provider.resolve.startsWith(PROVIDER_PACKAGE)) {
        const id = provider.id ?? 'gatewaykit';
        const options = parseOptions(provider.options);
        accounts.push({
          id,
          gatewayNo: options.gatewayNo,
          signKey: options.signKey,
          options,
          providerIds: ['gatewaykit', 'gatewaykit-hosted', 'gatewaykit-local'].map(
            (kind) => `pp_${kind}_${id}`,
          ),
        });
      }
    }
  }
  if (accounts.length === 0) {
    throw new Error(
      `${PROVIDER_PACKAGE}: no payment provider entry resolving "${PROVIDER_PACKAGE}/providers/gatewaykit" in medusa-config`,
    );
  }
  cached = accounts;
  return accounts;
}

/** The first entry's options: what the storefront-facing routes (saved cards) use. */
export function resolveGatewaykitOptions(scope: MedusaContainer): GatewaykitOptions {
  return resolveGatewaykitAccounts(scope)[0]!.options;
}
