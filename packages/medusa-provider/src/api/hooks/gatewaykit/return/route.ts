import { gatewayClientFor, handleReturn, sendInboundAnswer, withQuery } from '@gatewaykit/core';
import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { cartIdOfCollection } from '../../../../lib/cart-of-collection';
import { inboundContext } from '../../../../lib/inbound-request';

/**
 * The gateway's returnUrl: core verifies the return, confirms it with the gateway's record of its trade
 * and records it like a callback (docs/inbound.md);
 * the shopper then goes to the storefront with the cart id and the session's status after it.
 */
export async function GET(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  const { answer } = await handleReturn({
    ...inboundContext(req),
    query: new URL(req.originalUrl, 'http://return.local').searchParams,
    tradeRecord: (account, tradeNo, signal) =>
      gatewayClientFor(account.options).transactions.retrieve(tradeNo, { signal }),
    storefrontUrl: async (attempt, status, account) => {
      const cartId = await cartIdOfCollection(req.scope, attempt.session.payment_collection_id);
      return withQuery(account.options.storefrontReturnUrl, {
        ...(cartId ? { cart_id: cartId } : {}),
        outcome: status,
      });
    },
  });
  sendInboundAnswer(res, answer);
}
