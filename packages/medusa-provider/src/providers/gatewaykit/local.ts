import type { PaymentSource } from '@gatewaykit/core';
import { MedusaError } from '@medusajs/framework/utils';
import type { GatewaykitSessionData } from '../../lib/session-data';
import { GatewaykitBase } from './base';

/** Local payment methods (klarna, ideal, …): `data.localMethod` or the `localPaymentMethod` option. */
export class GatewaykitLocalService extends GatewaykitBase {
  static override identifier = 'gatewaykit-local';
  protected readonly mode = 'local' as const;
  protected readonly startsOnInitiate = true;

  protected paymentSource(data: Partial<GatewaykitSessionData>): PaymentSource {
    const method = this.localMethodOf(data);
    if (!method) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `Choose a local payment method in the session data (data.localMethod)${data.localMethod ? `: "${data.localMethod}" is not one of the gateway's methods` : ''}`,
      );
    }
    return { kind: 'local', method };
  }
}
