import {
  type Injector,
  type OrderProcess,
  type OrderState,
  Payment,
  TransactionalConnection,
} from '@vendure/core';
import { amountToPay, holdsMoney, paidInCurrency, paymentCurrency } from '../service/payment-request';

let connection: TransactionalConnection | undefined;

/**
 * Vendure moves an order to the currency of the request that changes it (on a channel with several
 * currencies) and counts its payments as bare integers when it decides the order is paid: a payment of
 * ¥1,500 made before the shopper switched the order to dollars would cover $1,500. The recorder never
 * adds a payment in another currency (payment-recorder.service.ts); this refuses to mark an order paid
 * while only payments in another currency cover it, whoever asks for the transition
 * (docs/SECURITY.md §6). Only payments that name their currency can be told apart: this plugin's always
 * do; another handler's payment without one is taken to be in the order's currency, as Vendure takes it.
 */
export const gatewaykitCurrencyGuardProcess: OrderProcess<OrderState> = {
  init(injector: Injector) {
    connection = injector.get(TransactionalConnection);
  },

  async onTransitionStart(_fromState, toState, { ctx, order }) {
    if (toState !== 'PaymentSettled' && toState !== 'PaymentAuthorized') return true;
    const payments =
      order.payments ??
      (connection
        ? await connection.getRepository(ctx, Payment).find({ where: { order: { id: order.id } } })
        : []);
    const foreign = payments.filter((p) => holdsMoney(p) && !paidInCurrency(p, order.currencyCode));
    if (
      foreign.length === 0 ||
      amountToPay({ totalWithTax: order.totalWithTax, currencyCode: order.currencyCode, payments }) <= 0
    )
      return true;
    const currencies = [...new Set(foreign.map((p) => paymentCurrency(p, order.currencyCode)))].join(', ');
    return `Payments made in ${currencies} do not count toward an order in ${order.currencyCode}: the order is not paid`;
  },
};
