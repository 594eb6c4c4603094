import { RequestContext } from '@vendure/core';
import type { EntityManager } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { contextManagerOf, setContextManager } from '../src/service/context-manager';
import { contextInCurrency } from '../src/service/currency-context';

/** A callback's admin context of a yen channel that also sells in dollars, inside a transaction. */
function callbackContext() {
  const channel = { id: 2, token: 'jp', defaultLanguageCode: 'ja', defaultCurrencyCode: 'JPY' };
  const ctx = new RequestContext({
    apiType: 'admin',
    channel: channel as never,
    isAuthorized: true,
    authorizedAsOwnerOnly: false,
    translationFn: ((key: string) => `t:${key}`) as never,
  });
  const manager = { name: 'transaction' } as unknown as EntityManager;
  setContextManager(ctx, manager);
  return { ctx, channel, manager };
}

describe('contextInCurrency', () => {
  it("counts in the attempt's currency, in the same channel, language, rights and transaction", () => {
    const { ctx, channel, manager } = callbackContext();
    expect(ctx.currencyCode).toBe('JPY');
    const dollars = contextInCurrency(ctx, 'USD');
    expect(dollars.currencyCode).toBe('USD');
    expect(dollars.channel).toBe(channel);
    expect(dollars.channelId).toBe(2);
    expect(dollars.languageCode).toBe('ja');
    expect(dollars.apiType).toBe('admin');
    expect(dollars.isAuthorized).toBe(true);
    expect(dollars.translate('error.x')).toBe('t:error.x');
    // Queries through it stay in the caller's transaction (and its row locks).
    expect(contextManagerOf(dollars)).toBe(manager);
    // The caller's own context is left as it was.
    expect(ctx.currencyCode).toBe('JPY');
  });

  it('is the context itself when it already counts in that currency', () => {
    const { ctx } = callbackContext();
    expect(contextInCurrency(ctx, 'JPY')).toBe(ctx);
  });
});
