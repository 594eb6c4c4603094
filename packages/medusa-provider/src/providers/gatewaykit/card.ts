import {
  type CardMethodDecision,
  type ElementCardCheckout,
  type KeptCard,
  keepElementCard,
  type PaymentOutcome,
  resolveCardMethod,
} from '@gatewaykit/core';
import type { PaymentProviderContext } from '@medusajs/framework/types';
import { MedusaError } from '@medusajs/framework/utils';
import { elementCardShopper, SessionElementCardCheckout } from '../../lib/element-card-bindings';
import { toMedusaError } from '../../lib/medusa-errors';
import type { GatewaykitSessionData } from '../../lib/session-data';
import { type ChargePlan, GatewaykitBase } from './base';

/** The gateway customer of the logged-in shopper (their account holder at this provider), if any. */
function shopperOf(context: PaymentProviderContext | undefined): string | undefined {
  const id = (context?.account_holder?.data as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Card payments (confirmCharge) on a gateway payment method, charged when the cart completes. The
 * storefront creates the session with `data.customerPaymentMethodId`: the method the card element made
 * (docs/card-element.md) or a saved card of the logged-in customer, and optionally `data.saveCard: true`.
 * Whether that method may be charged for this shopper is core's rule (resolveCardMethod), asked when the
 * session is created (a clear 400) and again right before the charge: a method attached to another
 * customer is never charged. A 3DS card answers `requires_more` with the challenge URL in the session data.
 */
export class GatewaykitCardService extends GatewaykitBase {
  static override identifier = 'gatewaykit';
  protected readonly mode = 'card' as const;
  protected readonly startsOnInitiate = false;

  /** Never charged without the gateway's record of the method: see chargePlan. */
  protected paymentSource(): undefined {
    return undefined;
  }

  protected override async checkChoice(
    data: Partial<GatewaykitSessionData>,
    context: PaymentProviderContext | undefined,
  ): Promise<Partial<GatewaykitSessionData>> {
    const checked = { ...data, gatewayCustomerId: shopperOf(context) };
    if (data.saveCard === true) {
      if (!data.customerPaymentMethodId) {
        throw new MedusaError(
          MedusaError.Types.INVALID_DATA,
          'data.saveCard: needs data.customerPaymentMethodId, the payment method the card element returned',
        );
      }
      if (!checked.gatewayCustomerId) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          'data.saveCard: saving a card needs a logged-in customer; log in, or pay without saving the card',
        );
      }
    }
    if (checked.customerPaymentMethodId) await this.decide(checked);
    return checked;
  }

  protected override async chargePlan(data: Partial<GatewaykitSessionData>): Promise<ChargePlan | undefined> {
    if (!data.customerPaymentMethodId) return undefined;
    // Asked again right before the charge: the method's owner may have changed since the session began.
    const decision = await this.decide(data);
    return { source: decision.source, decision };
  }

  protected override async afterCharge(
    plan: ChargePlan,
    outcome: PaymentOutcome,
  ): Promise<KeptCard | undefined> {
    if (!plan.decision?.ok || !plan.decision.keep) return undefined;
    const kept = await keepElementCard(this.client, plan.decision, outcome);
    if (kept === 'failed') {
      // The payment stands; the card is only not kept (docs/card-element.md).
      this.logger_.warn(
        `gatewaykit: the paid card ${plan.decision.keep.customerPaymentMethodId} could not be attached to gateway customer ${plan.decision.keep.customerId}; it is not in the saved cards`,
      );
    }
    return kept;
  }

  /**
   * The payment collection of session `sessionId` and the shopper who names the card there, as the
   * checkout a fresh element card is bound to (lib/element-card-bindings.ts). Overridden in unit tests
   * that have no database.
   */
  protected elementCardCheckout(sessionId: string, shopper: string): ElementCardCheckout {
    return new SessionElementCardCheckout(this.storeDatabase('a card payment'), sessionId, shopper);
  }

  /** Core's card rule for the session's method; a refusal is a 400 naming the storefront's field. */
  private async decide(
    data: Partial<GatewaykitSessionData>,
  ): Promise<Extract<CardMethodDecision, { ok: true }>> {
    let decision: CardMethodDecision;
    try {
      decision = await resolveCardMethod(
        this.client,
        data.customerPaymentMethodId!,
        { gatewayCustomerId: data.gatewayCustomerId },
        data.saveCard === true,
        this.elementCardCheckout(data.orderNo!, elementCardShopper(data)),
      );
    } catch (error) {
      throw toMedusaError(
        error,
        'gatewaykit: the card could not be checked at the gateway (nothing was charged)',
      );
    }
    if (!decision.ok) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `data.${decision.field}: ${decision.message}`);
    }
    return decision;
  }
}
