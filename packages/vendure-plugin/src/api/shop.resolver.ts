import type { RawCard } from '@gatewaykit/core';
import { Args, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Allow, Ctx, Permission, RequestContext } from '@vendure/core';
import {
  CheckoutService,
  type StartPaymentInput,
  type StartPaymentResult,
} from '../service/checkout.service';
import { type SaveCardAddress, type SavedCard, SavedCardService } from '../service/saved-card.service';

@Resolver()
export class GatewaykitShopResolver {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly savedCards: SavedCardService,
  ) {}

  // Owner: only the session's own active order can be paid.
  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitStartPayment(
    @Ctx() ctx: RequestContext,
    @Args('input') input: StartPaymentInput,
  ): Promise<StartPaymentResult> {
    return this.checkout.start(ctx, input);
  }

  @Query()
  @Allow(Permission.Owner)
  gatewaykitSavedCards(
    @Ctx() ctx: RequestContext,
    @Args('paymentMethodCode') paymentMethodCode: string,
  ): Promise<SavedCard[]> {
    return this.savedCards.list(ctx, paymentMethodCode);
  }

  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitSaveCard(
    @Ctx() ctx: RequestContext,
    @Args('input') input: SaveCardAddress & { paymentMethodCode: string; card: RawCard },
  ): Promise<SavedCard> {
    const { paymentMethodCode, card, ...address } = input;
    return this.savedCards.save(ctx, paymentMethodCode, card, address);
  }

  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitRemoveSavedCard(
    @Ctx() ctx: RequestContext,
    @Args('paymentMethodCode') paymentMethodCode: string,
    @Args('id') id: string,
  ): Promise<boolean> {
    return this.savedCards.remove(ctx, paymentMethodCode, id);
  }
}

@Resolver('GatewaykitPaymentResult')
export class GatewaykitPaymentResultResolver {
  @ResolveField()
  __resolveType(value: StartPaymentResult): string {
    return value.__typename;
  }
}
