/**
 * What a payment's gateway notices say about refunding it through the store
 * (docs/callbacks-and-returns.md#what-blocks-a-refund). Both platforms ask this one rule before a refund
 * is sent; a refusal sends nothing to the gateway.
 */
import { minorToOrderAmount, orderAmountToMinor } from './money.js';

/** What a store kept from a payment's notices. */
export interface RefundHistory {
  /** Chargebacks recorded for the payment (`chargeback.success` notices). */
  chargebacks?:
    | readonly { batchNo?: string | undefined; amount?: string | undefined; currency?: string | undefined }[]
    | undefined;
  /**
   * batchNos of refunds made at the gateway that the platform does not count (the merchant portal):
   * what is left to refund cannot be told.
   */
  uncountedRefunds?: readonly string[] | undefined;
}

/** The refund asked for, and what the platform counts against it; amounts as the gateway writes them. */
export interface RefundAsked {
  amount: string;
  /** What the payment took. */
  paid: string;
  /** The platform's own refunds of the payment that may have returned money (not the failed ones). */
  refunded: readonly string[];
  /** The trade's currency. */
  currency: string;
}

/**
 * Why a refund through the store must not be sent, or undefined when nothing blocks it. The bank has
 * already taken a chargeback's amount back from the merchant, and a refund of it would return it twice
 * (nothing published says the gateway refuses it): a refund may take only what is left after the
 * chargebacks. A chargeback whose amount cannot be counted (missing, another currency) blocks every
 * refund, and so does a refund made outside the store (the merchant portal): the store does not count
 * it, and nothing published says the gateway refuses more than is left.
 */
export async function refundBlockedBy(
  history: RefundHistory,
  /** Asked for only when a chargeback is to be counted against it (the platform may read to answer). */
  askedFor: () => RefundAsked | Promise<RefundAsked>,
): Promise<string | undefined> {
  const chargebacks = history.chargebacks ?? [];
  const named = chargebacks.map((chargeback) => chargeback.batchNo ?? 'without batchNo').join(', ');
  const uncounted = history.uncountedRefunds ?? [];
  if (uncounted.length > 0) {
    const charged = chargebacks.length > 0 ? `charged back (chargeback ${named}) and ` : '';
    return (
      `the payment was ${charged}refunded outside the store (batchNo ${uncounted.join(', ')}): ` +
      'what is left cannot be told here, and a refund could return money twice. Refund any more in the merchant portal'
    );
  }
  if (chargebacks.length === 0) return undefined;
  const asked = await askedFor();
  const charged = chargedBackMinor(chargebacks, asked.currency);
  if (charged === undefined) {
    return (
      `the payment was charged back (chargeback ${named}), by an amount that cannot be counted: the ` +
      "cardholder's bank has already returned money, and a refund could return it twice. Answer the chargeback in the merchant portal"
    );
  }
  const minor = (amount: string) => orderAmountToMinor(amount, asked.currency);
  const left = asked.refunded.reduce((rest, refund) => rest - minor(refund), minor(asked.paid)) - charged;
  if (minor(asked.amount) <= left) return undefined;
  const rest =
    left > 0 ? `only ${minorToOrderAmount(left, asked.currency)} ${asked.currency} is` : 'nothing is';
  return (
    `the payment was charged back (chargeback ${named}): the cardholder's bank has already returned that money, ` +
    `so ${rest} left to refund, not ${asked.amount} ${asked.currency}`
  );
}

/** The chargebacks' total in minor units of `currency`; undefined when one cannot be counted. */
function chargedBackMinor(chargebacks: NonNullable<RefundHistory['chargebacks']>, currency: string) {
  let total = 0;
  for (const { amount, currency: theirs } of chargebacks) {
    if (!amount || (theirs && theirs.toUpperCase() !== currency.toUpperCase())) return undefined;
    try {
      total += orderAmountToMinor(amount, currency);
    } catch {
      return undefined;
    }
  }
  return total;
}
