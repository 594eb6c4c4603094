import { type CurrencyCode, RequestContext } from '@vendure/core';
import { contextManagerOf, setContextManager } from './context-manager';

/**
 * `ctx` counted in `currency`: the same channel, session, language and transaction. Vendure moves an
 * order to the currency of the context that recalculates it (OrderService.applyPriceAdjustments sets
 * `order.currencyCode = ctx.currencyCode`), and a callback's or the reconciliation's context has the
 * channel's default currency. Adding a payment revalidates the order's coupons and recalculates it when
 * one is stripped, so in that context a dollar order of a yen channel would become a yen order while
 * its dollar payment is recorded. The recorder works on an order in the currency of the attempt it
 * records (the order's currency when it was charged), so it uses that currency's context.
 */
export function contextInCurrency(ctx: RequestContext, currency: string): RequestContext {
  if (ctx.currencyCode === currency) return ctx;
  const counted = new RequestContext({
    req: ctx.req,
    apiType: ctx.apiType,
    channel: ctx.channel,
    session: ctx.session,
    languageCode: ctx.languageCode,
    currencyCode: currency as CurrencyCode,
    isAuthorized: ctx.isAuthorized,
    authorizedAsOwnerOnly: ctx.authorizedAsOwnerOnly,
    translationFn: ((key: string, variables?: Record<string, unknown>) =>
      ctx.translate(key, variables as never)) as never,
  });
  // The queries stay in the caller's transaction (and its attempt and order locks).
  const manager = contextManagerOf(ctx);
  if (manager) setContextManager(counted, manager);
  return counted;
}
