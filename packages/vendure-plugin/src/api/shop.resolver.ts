import { GatewayValidationError, isGatewayError } from '@gatewaykit/core';
import { Args, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Allow, Ctx, Permission, RequestContext, UserInputError } from '@vendure/core';
import type { z } from 'zod';
import { MethodConfigError } from '../config/method-args';
import { type CardElement, CardElementError, CardElementService } from '../service/card-element.service';
import { CheckoutService } from '../service/checkout.service';
import type { ShopStartPaymentResult } from '../service/checkout-result';
import { type SavedCard, SavedCardService } from '../service/saved-card.service';
import {
  cardElementArgs,
  parseShopInput,
  removeSavedCardArgs,
  saveCardInput,
  savedCardsArgs,
} from './shop-input';

@Resolver()
export class GatewaykitShopResolver {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly savedCards: SavedCardService,
    private readonly cardElement: CardElementService,
  ) {}

  // Owner: the token is for the session's own active order (no active order, no token).
  @Query()
  @Allow(Permission.Owner)
  gatewaykitCardElement(@Ctx() ctx: RequestContext, @Args() args: unknown): Promise<CardElement> {
    const { paymentMethodCode } = parsedOrThrow(cardElementArgs, args);
    return shopErrors(() => this.cardElement.forActiveOrder(ctx, paymentMethodCode));
  }

  // Owner: only the session's own active order can be paid. Input is parsed by the checkout (ErrorResult).
  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitStartPayment(
    @Ctx() ctx: RequestContext,
    @Args('input') input: unknown,
  ): Promise<ShopStartPaymentResult> {
    return this.checkout.start(ctx, input);
  }

  @Query()
  @Allow(Permission.Owner)
  gatewaykitSavedCards(@Ctx() ctx: RequestContext, @Args() args: unknown): Promise<SavedCard[]> {
    const { paymentMethodCode } = parsedOrThrow(savedCardsArgs, args);
    return shopErrors(() => this.savedCards.list(ctx, paymentMethodCode));
  }

  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitSaveCard(@Ctx() ctx: RequestContext, @Args('input') input: unknown): Promise<SavedCard> {
    this.savedCards.assertRawCardDataAllowed();
    const { paymentMethodCode, card, ...address } = parsedOrThrow(saveCardInput, input);
    return shopErrors(() => this.savedCards.save(ctx, paymentMethodCode, card, address));
  }

  @Mutation()
  @Allow(Permission.Owner)
  gatewaykitRemoveSavedCard(@Ctx() ctx: RequestContext, @Args() args: unknown): Promise<boolean> {
    const { paymentMethodCode, id } = parsedOrThrow(removeSavedCardArgs, args);
    return shopErrors(() => this.savedCards.remove(ctx, paymentMethodCode, id));
  }
}

/** These fields have no error union in the schema: a refused input is a UserInputError naming the field. */
function parsedOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = parseShopInput(schema, input);
  if (!parsed.ok) throw new UserInputError(parsed.message);
  return parsed.value;
}

/**
 * A storefront-caused failure is never an INTERNAL_SERVER_ERROR: unknown methods and gateway refusals
 * become UserInputErrors. Gateway error messages are redacted by core and never hold card data.
 */
async function shopErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof MethodConfigError || e instanceof CardElementError) throw new UserInputError(e.message);
    if (e instanceof GatewayValidationError) throw new UserInputError(e.message);
    if (isGatewayError(e)) throw new UserInputError(`The gateway refused the request: ${e.message}`);
    throw e;
  }
}

@Resolver('GatewaykitPaymentResult')
export class GatewaykitPaymentResultResolver {
  @ResolveField()
  __resolveType(value: ShopStartPaymentResult): string {
    return value.__typename;
  }
}
