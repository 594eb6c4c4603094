export interface GatewaykitPluginOptions {
  /**
   * Public base URL of this Vendure server (no trailing slash), e.g. `https://shop.example.com`.
   * The gateway posts callbacks to `${vendureHost}/payments/gatewaykit/callback/...` and sends the
   * shopper back to `${vendureHost}/payments/gatewaykit/return/...`.
   */
  vendureHost: string;
  /**
   * Storefront page shown after the return, `{code}` is replaced by the order code,
   * e.g. `https://store.example.com/checkout/confirmation/{code}`.
   */
  storefrontOrderUrl: string;
  /** Sent as `webSite`; defaults to the host of `storefrontOrderUrl`. */
  webSite?: string;
  /**
   * PCI opt-in: accept raw card data (card number, CVV) in the Shop API for one-off charges and for
   * saving cards. Off by default; without it only saved cards and hosted/local pages are used.
   */
  allowRawCardData?: boolean;
  /** Per-attempt HTTP timeout towards the gateway, ms. */
  gatewayTimeoutMs?: number;
}

declare module '@vendure/core/dist/entity/custom-entity-fields' {
  // The deep import path is deliberate: other payment plugins augment the same interface.
  interface CustomCustomerFields {
    gatewaykitCustomerId?: string | null;
  }
}
