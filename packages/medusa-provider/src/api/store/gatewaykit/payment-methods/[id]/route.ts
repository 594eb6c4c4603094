import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { accountHolderOf, savedCardProviderId } from '../../../../../lib/account-holder';

/** Detaches one of the logged-in customer's saved cards; another customer's card is a 404. */
export async function DELETE(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const id = req.params.id!;
  const holder = await accountHolderOf(req.scope, req.auth_context.actor_id, { create: false });
  const paymentModule = req.scope.resolve(Modules.PAYMENT);
  const owned = holder
    ? await paymentModule.listPaymentMethods({
        provider_id: savedCardProviderId(req.scope),
        context: { account_holder: holder },
      })
    : [];
  if (!owned.some((method) => method.id === id)) {
    // The id is not echoed: a shopper may have typed anything into it, a card number included.
    throw new MedusaError(MedusaError.Types.NOT_FOUND, 'No such saved card');
  }
  await paymentModule.deletePaymentMethods([
    { provider_id: savedCardProviderId(req.scope), id, context: { account_holder: holder! } } as never,
  ]);
  res.json({ id, object: 'payment_method', deleted: true });
}
