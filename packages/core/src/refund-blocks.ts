/**
 * What a payment's gateway notices say about refunding it through the store
 * (docs/callbacks-and-returns.md#what-blocks-a-refund). Both platforms ask this one rule before a refund
 * is sent; a refusal sends nothing to the gateway.
 */

/** What a store kept from a payment's notices. */
export interface RefundHistory {
  /** Chargebacks recorded for the payment (`chargeback.success` notices), by batchNo when given. */
  chargebacks?: readonly { batchNo?: string | undefined }[] | undefined;
}

/**
 * Why a refund through the store must not be sent, or undefined when nothing blocks it. A chargeback:
 * the cardholder's bank has already taken the money back from the merchant, and a refund on top would
 * return it twice (nothing published says the gateway refuses it).
 */
export function refundBlockedBy(history: RefundHistory): string | undefined {
  const chargeback = history.chargebacks?.[0];
  if (!chargeback) return undefined;
  return (
    `the payment was charged back (chargeback ${chargeback.batchNo ?? 'without batchNo'}): the cardholder's bank ` +
    'has already returned the money, and a refund would return it twice. Answer the chargeback in the merchant portal instead'
  );
}
