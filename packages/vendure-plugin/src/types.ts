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
  /** Reconciliation of payments and refunds whose answer was lost (README: Reconciliation). */
  reconcile?: ReconcileOptions;
  /**
   * Answer the gateway's payment status callbacks once they are kept on Vendure's job queue, and record
   * them in the worker (README: "Callbacks recorded in the worker"). Off by default: the callback is
   * recorded in the request, as the one-process demo's in-memory job queue keeps nothing across a
   * restart. Turn it on with a durable job queue (BullMQ) and a worker.
   */
  recordCallbacksInWorker?: boolean;
}

export interface ReconcileOptions {
  /** Cron schedule of the `gatewaykit-reconcile` scheduled task; default every 10 minutes. */
  schedule?: string;
  /** How long a payment attempt or refund waits for its answer before it is reconciled; default 15 minutes. */
  afterMs?: number;
  /**
   * How long after sending the gateway's having no record of a payment means it was never charged
   * (the attempt then fails and frees the order); default core's 30 minutes. Keep it well above the
   * gateway timeout: a charge still on its way must not be declared failed.
   */
  noRecordAfterMs?: number;
  /**
   * Per run and within `maxAgeMs`, at most this many owed attempts (started, pending, unknown; oldest
   * first), gateway pages (redirect; newest first) and refunds (oldest first, those the gateway gave a
   * refund number before those whose answer was lost); default 200.
   */
  batchSize?: number;
  /**
   * Older attempts and refunds are left to a person; default 7 days. An attempt still owed or on a
   * gateway page when it passes this age is said once on its order (and in the error log).
   */
  maxAgeMs?: number;
  /**
   * How long after a refund whose record was lost was sent it may be closed as not made
   * (`gatewaykitCloseRefundIntent` with `made: false`); default 24 hours. A refund whose answer was lost
   * may still be under way at the gateway, and the merchant portal may not show it yet: closing it as not
   * made too early lets the same money be refunded again.
   */
  notMadeCloseAfterMs?: number;
  /**
   * How many days back each run lists the gateway's chargebacks (docs/gateway-protocol.md#chargebacks-in-each-run);
   * default 180. 0 turns that pass off, for a merchant account without access to the list.
   */
  chargebackLookbackDays?: number;
}

declare module '@vendure/core/dist/entity/custom-entity-fields' {
  // The deep import path is deliberate: other payment plugins augment the same interface.
  interface CustomCustomerFields {
    gatewaykitCustomerId?: string | null;
  }
}
