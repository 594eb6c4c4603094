/**
 * Runtime configuration served by the storefront server as /config.json. Only public values: the
 * Medusa publishable key and what each demo store allows; never a secret.
 */
export interface StorefrontConfig {
  medusa: {
    /** Path prefix the storefront server proxies to the Medusa backend. */
    apiBase: string;
    publishableKey: string;
    regionName: string;
    /** The store saves typed cards (PCI opt-in); Medusa needs a logged-in customer for that. */
    rawCards: boolean;
    localMethods: string[];
  };
  vendure: {
    apiBase: string;
    /** The store charges typed cards (PCI opt-in). */
    rawCards: boolean;
    /** Payment method whose saved cards "my saved cards" shows (eligible methods need an active order). */
    cardMethodCode: string;
  };
}

export async function loadConfig(): Promise<StorefrontConfig> {
  const response = await fetch('/config.json');
  if (!response.ok) throw new Error(`The storefront configuration could not be loaded (${response.status})`);
  return (await response.json()) as StorefrontConfig;
}
