import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys, MedusaError } from '@medusajs/framework/utils';
import { firstOpenCharge } from '../../lib/open-charges';
import { paymentCollectionIdOf } from './payment-session-route';

type Sessions = { id: string; provider_id: string; data?: Record<string, unknown> | null }[];

/**
 * While a gatewaykit charge of a cart may have taken money (sent, unknown, pending, or paid but not yet
 * completed), the cart cannot change and no other payment session can be created: Medusa would delete
 * that session, and its result could then reach no cart (docs/SECURITY.md). The provider refuses the
 * deletion anyway; this answers the storefront with a clear 400 instead of a failed workflow.
 */
export function refuseWhileChargeOpen(param: 'cart' | 'payment_collection') {
  return async (req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction): Promise<void> => {
    try {
      const id = param === 'cart' ? req.params.id! : paymentCollectionIdOf(req);
      const open = firstOpenCharge(await sessionsOf(req, param, id));
      if (open) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `A payment for this cart (gateway orderNo ${open}) is still being confirmed by the gateway; the cart and its payment cannot change until its result arrives`,
        );
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

async function sessionsOf(
  req: MedusaRequest,
  param: 'cart' | 'payment_collection',
  id: string,
): Promise<Sessions> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY);
  if (param === 'cart') {
    const { data } = await query.graph({
      entity: 'cart',
      fields: ['payment_collection.payment_sessions.*'],
      filters: { id },
    });
    return (
      (data[0] as { payment_collection?: { payment_sessions?: Sessions } } | undefined)?.payment_collection
        ?.payment_sessions ?? []
    );
  }
  const { data } = await query.graph({
    entity: 'payment_collection',
    fields: ['payment_sessions.*'],
    filters: { id },
  });
  return (data[0] as { payment_sessions?: Sessions } | undefined)?.payment_sessions ?? [];
}
