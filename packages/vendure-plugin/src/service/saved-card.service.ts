import {
  billingDetail,
  customerRequest,
  type RawCard,
  removeSavedCard,
  saveCardData,
} from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  Customer,
  CustomerService,
  ForbiddenError,
  RequestContext,
  TransactionalConnection,
  UserInputError,
} from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS } from '../constants';
import { GatewaykitElementCardBinding } from '../entity/element-card-binding.entity';
import type { GatewaykitPluginOptions } from '../types';
import { keepGatewayCustomerId } from './gateway-customer-id';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { retiredCardsIn } from './order-element-card';

export interface SavedCard {
  id: string;
  customerId: string;
  brand: string | null;
  last4: string | null;
  maskCardNo: string;
}

export interface SaveCardAddress {
  line1: string;
  city: string;
  countryCode: string;
  postalCode?: string | null;
  province?: string | null;
}

/**
 * Saved cards of the logged-in customer. The gateway customer id lives in a Customer custom field
 * that the Shop API can neither read nor write; every card operation first checks that the card is
 * attached to that customer, so another customer's card can never be listed, charged or removed.
 */
@Injectable()
export class SavedCardService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly customerService: CustomerService,
    private readonly methods: MethodConfigService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async list(ctx: RequestContext, methodCode: string): Promise<SavedCard[]> {
    const resolved = await this.methods.resolve(ctx, methodCode);
    const customer = await this.activeCustomer(ctx);
    const customerId = customer.customFields.gatewaykitCustomerId;
    if (!customerId) return [];
    const cards = await this.cardsOf(resolved, customerId);
    // A saved card is never a fresh element card; this also covers cards saved before saves retired
    // them (docs/card-element.md#who-owns-a-card).
    await this.retiredCards(ctx).retireUnbound(cards.map((card) => card.id));
    return cards;
  }

  async findOwnedCard(
    ctx: RequestContext,
    resolved: ResolvedMethod,
    cardId: string,
  ): Promise<SavedCard | undefined> {
    const customer = await this.activeCustomer(ctx);
    const customerId = customer.customFields.gatewaykitCustomerId;
    if (!customerId) return undefined;
    return (await this.cardsOf(resolved, customerId)).find((c) => c.id === cardId);
  }

  /**
   * Raw card data is a PCI opt-in; every other store saves cards through the card element
   * (docs/card-element.md). Asked before the input is even parsed.
   */
  assertRawCardDataAllowed(): void {
    if (this.options.allowRawCardData) return;
    throw new UserInputError(
      'This store does not accept card data directly. Save a card by paying with the card element: ' +
        'gatewaykitCardElement, then gatewaykitStartPayment with elementPaymentMethodId and saveCard: true',
    );
  }

  /** PCI opt-in: stores a card at the gateway for the logged-in customer. Card data is never kept here. */
  async save(
    ctx: RequestContext,
    methodCode: string,
    card: RawCard,
    address: SaveCardAddress,
  ): Promise<SavedCard> {
    this.assertRawCardDataAllowed();
    const resolved = await this.methods.resolve(ctx, methodCode);
    const customer = await this.activeCustomer(ctx);
    const customerId = await this.gatewayCustomerId(ctx, resolved, customer);
    const created = await saveCardData(
      resolved.client,
      {
        customerId,
        card,
        billingDetail: billingDetail(
          {
            email: customer.emailAddress,
            firstName: customer.firstName,
            lastName: customer.lastName,
            phone: customer.phoneNumber,
          },
          {
            line1: address.line1,
            city: address.city,
            country: address.countryCode,
            state: address.province ?? undefined,
            postalCode: address.postalCode ?? undefined,
          },
        ),
      },
      this.retiredCards(ctx),
    );
    const id = created.customerPaymentMethodId;
    const saved = (await this.cardsOf(resolved, customerId)).find((c) => c.id === id);
    return (
      saved ?? {
        id,
        customerId,
        brand: null,
        last4: card.cardNo.slice(-4),
        maskCardNo: `***${card.cardNo.slice(-4)}`,
      }
    );
  }

  async remove(ctx: RequestContext, methodCode: string, cardId: string): Promise<boolean> {
    const resolved = await this.methods.resolve(ctx, methodCode);
    const owned = await this.findOwnedCard(ctx, resolved, cardId);
    if (!owned) return false;
    await removeSavedCard(resolved.client, owned.id, this.retiredCards(ctx));
    return true;
  }

  /** Where saved cards are retired: removed ones, and ones saved from card data (docs/card-element.md). */
  private retiredCards(ctx: RequestContext) {
    return retiredCardsIn(this.connection.getRepository(ctx, GatewaykitElementCardBinding));
  }

  /**
   * The active customer's gateway customer id for a charge (undefined for a guest); `create` makes one
   * first when the customer has none yet (saving an element card).
   */
  async shopperGatewayCustomerId(
    ctx: RequestContext,
    resolved: ResolvedMethod,
    create: boolean,
  ): Promise<string | undefined> {
    if (!ctx.activeUserId) return undefined;
    const customer = await this.activeCustomer(ctx);
    if (!create) return customer.customFields.gatewaykitCustomerId ?? undefined;
    return this.gatewayCustomerId(ctx, resolved, customer);
  }

  private async cardsOf(resolved: ResolvedMethod, customerId: string): Promise<SavedCard[]> {
    const cards = await resolved.client.paymentMethods.list(customerId);
    return cards
      .filter((pm) => !pm.customerId || pm.customerId === customerId)
      .map((pm) => {
        const last4 = pm.card?.last4 ?? null;
        return {
          id: pm.customerPaymentMethodId,
          customerId,
          brand: pm.card?.brand ?? null,
          last4,
          maskCardNo: `***${last4 ?? ''}`,
        };
      });
  }

  private async activeCustomer(ctx: RequestContext): Promise<Customer> {
    if (!ctx.activeUserId) throw new ForbiddenError();
    const customer = await this.customerService.findOneByUserId(ctx, ctx.activeUserId);
    if (!customer) throw new ForbiddenError();
    return customer;
  }

  /** Lookup-or-create of the gateway customer, for logged-in customers only. */
  private async gatewayCustomerId(
    ctx: RequestContext,
    resolved: ResolvedMethod,
    customer: Customer,
  ): Promise<string> {
    const existing = customer.customFields.gatewaykitCustomerId;
    if (existing) return existing;
    const created = await resolved.client.customers.create(
      customerRequest(
        {
          email: customer.emailAddress,
          firstName: customer.firstName,
          lastName: customer.lastName,
          phone: customer.phoneNumber,
        },
        `Vendure customer ${customer.id}`,
      ),
    );
    const kept = await keepGatewayCustomerId(
      this.connection.getRepository(ctx, Customer),
      customer.id,
      created.customerId,
    );
    customer.customFields.gatewaykitCustomerId = kept;
    return kept;
  }
}
