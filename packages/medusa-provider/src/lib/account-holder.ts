import type { AccountHolderDTO, MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { resolveGatewaykitAccounts } from './resolve-options';

/**
 * The card provider whose saved cards the store routes list, save and remove: the card provider of the
 * first gatewaykit entry in medusa-config, whatever its `id` (packages/medusa-provider/README.md, "Several
 * merchant accounts"). Saved cards live at one gateway account; a store with several keeps them at the first.
 */
export function savedCardProviderId(scope: MedusaContainer): string {
  return resolveGatewaykitAccounts(scope)[0]!.providerIds[0]!;
}

type CustomerWithHolders = {
  id: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  account_holders?: (AccountHolderDTO | null)[] | null;
};

/**
 * The customer's account holder of the card provider (= the gateway customer). Medusa creates it with
 * the customer's first payment session; saving a card before that creates and links it here.
 */
export async function accountHolderOf(
  scope: MedusaContainer,
  customerId: string,
  options: { create: boolean; providerId?: string },
): Promise<AccountHolderDTO | undefined> {
  const providerId = options.providerId ?? savedCardProviderId(scope);
  const query = scope.resolve(ContainerRegistrationKeys.QUERY);
  const { data } = await query.graph({
    entity: 'customer',
    fields: ['id', 'email', 'first_name', 'last_name', 'phone', 'account_holders.*'],
    filters: { id: customerId },
  });
  const customer = data[0] as CustomerWithHolders | undefined;
  if (!customer) return undefined;
  const existing = customer.account_holders?.find((holder) => holder?.provider_id === providerId);
  if (existing || !options.create) return existing ?? undefined;
  const paymentModule = scope.resolve(Modules.PAYMENT);
  const holder = await paymentModule.createAccountHolder({
    provider_id: providerId,
    context: {
      customer: {
        ...customer,
        first_name: customer.first_name ?? undefined,
        last_name: customer.last_name ?? undefined,
        phone: customer.phone ?? undefined,
      },
    },
  });
  await scope.resolve(ContainerRegistrationKeys.LINK).create({
    [Modules.CUSTOMER]: { customer_id: customer.id },
    [Modules.PAYMENT]: { account_holder_id: holder.id },
  });
  return holder;
}
