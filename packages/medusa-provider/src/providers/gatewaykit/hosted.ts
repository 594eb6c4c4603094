import type { PaymentSource } from '@gatewaykit/core';
import { GatewaykitBase } from './base';

/** The gateway's hosted checkout page: the session carries the page URL for the storefront's redirect. */
export class GatewaykitHostedService extends GatewaykitBase {
  static override identifier = 'gatewaykit-hosted';
  protected readonly mode = 'hosted' as const;
  protected readonly startsOnInitiate = true;

  protected paymentSource(): PaymentSource {
    return { kind: 'hosted' };
  }
}
