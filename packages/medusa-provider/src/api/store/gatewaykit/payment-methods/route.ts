import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { Modules } from '@medusajs/framework/utils';
import { accountHolderOf, CARD_PROVIDER_ID } from '../../../../lib/account-holder';

/** The logged-in customer's saved cards (brand and last4 only). */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const holder = await accountHolderOf(req.scope, req.auth_context.actor_id, { create: false });
  if (!holder) {
    res.json({ payment_methods: [] });
    return;
  }
  const methods = await req.scope.resolve(Modules.PAYMENT).listPaymentMethods({
    provider_id: CARD_PROVIDER_ID,
    context: { account_holder: holder },
  });
  res.json({ payment_methods: methods.map(({ id, data }) => ({ id, data })) });
}

/**
 * Saves a card for the logged-in customer. Raw card data: only when the merchant enabled
 * allowRawCardData (PCI-compliant); it goes straight to the gateway and is never stored or logged.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const holder = await accountHolderOf(req.scope, req.auth_context.actor_id, { create: true });
  const body = (req.body ?? {}) as { card?: unknown; billingDetail?: unknown };
  const saved = await req.scope.resolve(Modules.PAYMENT).createPaymentMethods({
    provider_id: CARD_PROVIDER_ID,
    data: { card: body.card, billingDetail: body.billingDetail },
    context: { account_holder: holder! },
  });
  res.status(201).json({ payment_method: { id: saved.id, data: saved.data } });
}
