import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError, Modules } from '@medusajs/framework/utils';
import { accountHolderOf, savedCardProviderId } from '../../../../lib/account-holder';
import { SAVE_WITH_THE_CARD_ELEMENT } from '../../../../lib/card-element';
import { resolveGatewaykitOptions } from '../../../../lib/resolve-options';
import { parseSaveCardInput } from '../../../../lib/save-card-input';

/** The logged-in customer's saved cards (brand and last4 only). */
export async function GET(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const holder = await accountHolderOf(req.scope, req.auth_context.actor_id, { create: false });
  if (!holder) {
    res.json({ payment_methods: [] });
    return;
  }
  const methods = await req.scope.resolve(Modules.PAYMENT).listPaymentMethods({
    provider_id: savedCardProviderId(req.scope),
    context: { account_holder: holder },
  });
  res.json({ payment_methods: methods.map(({ id, data }) => ({ id, data })) });
}

/**
 * Saves a card for the logged-in customer from raw card data (PCI stores). Every other store saves cards
 * with the card element (docs/card-element.md) and gets a 400 saying so. Raw card data: only when the merchant enabled
 * allowRawCardData (PCI-compliant), checked before anything else happens; the body is allow-listed
 * (card + billingDetail), goes straight to the gateway and is never stored or logged.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  if (!resolveGatewaykitOptions(req.scope).allowRawCardData) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, SAVE_WITH_THE_CARD_ELEMENT);
  }
  const body = parseSaveCardInput(req.body);
  const holder = await accountHolderOf(req.scope, req.auth_context.actor_id, { create: true });
  const saved = await req.scope.resolve(Modules.PAYMENT).createPaymentMethods({
    provider_id: savedCardProviderId(req.scope),
    data: body,
    context: { account_holder: holder! },
  });
  res.status(201).json({ payment_method: { id: saved.id, data: saved.data } });
}
