import type { PaymentSource } from '@gatewaykit/core';
import type { GatewaykitSessionData } from '../../lib/session-data';
import { GatewaykitBase } from './base';

/**
 * Card payments on a saved card (confirmCharge), charged when the cart completes. The storefront
 * creates the session with `data.customerPaymentMethodId`; a 3DS card answers `requires_more` with
 * the challenge URL in the session data.
 */
export class GatewaykitCardService extends GatewaykitBase {
  static override identifier = 'gatewaykit';
  protected readonly mode = 'card' as const;
  protected readonly startsOnInitiate = false;

  protected paymentSource(data: Partial<GatewaykitSessionData>): PaymentSource | undefined {
    // Only a card whose owner was checked at session creation: sessions stored before that check
    // (or written around it) carry no gatewayCustomerId and are never charged.
    return data.customerPaymentMethodId && data.gatewayCustomerId
      ? {
          kind: 'saved-card',
          customerPaymentMethodId: data.customerPaymentMethodId,
          customerId: data.gatewayCustomerId,
        }
      : undefined;
  }
}
