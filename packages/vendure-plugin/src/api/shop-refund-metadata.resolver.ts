import { Parent, ResolveField, Resolver } from '@nestjs/graphql';
import type { Refund } from '@vendure/core';

/**
 * `Refund.metadata` in the Shop API. Vendure shows a payment's metadata to the shopper only under
 * `public`, but a refund's whole metadata; the plugin's refunds keep admin text there (the gateway's
 * refusal, a lost answer, the merchant's refund ids: service/refund-request.ts), so the shopper sees
 * only its `public` part, as with a payment. Other methods' refunds are shown as Vendure shows them.
 */
@Resolver('Refund')
export class ShopRefundMetadataResolver {
  @ResolveField()
  metadata(@Parent() refund: Refund): Record<string, unknown> | null {
    const metadata = (refund.metadata ?? null) as Record<string, unknown> | null;
    if (!metadata || metadata.gatewaykit === undefined) return metadata;
    const shown = metadata.public;
    return shown && typeof shown === 'object' ? { public: shown } : {};
  }
}
