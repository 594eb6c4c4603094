import { amountToPay, type PayableOrder } from './payment-request';

/**
 * How much more than the order still owes a payment of `amount` is (0 when it is not more). A gateway
 * page keeps the amount it was opened for: a shopper who lowered the order's total meanwhile and paid
 * on the old page has paid too much. The payment is kept (the money is taken and the order is paid);
 * the difference is the merchant's to refund (docs/SECURITY.md §6).
 */
export function overpaidBy(
  order: Pick<PayableOrder, 'totalWithTax' | 'payments' | 'currencyCode'>,
  amount: number,
): number {
  return Math.max(amount - Math.max(amountToPay(order), 0), 0);
}
