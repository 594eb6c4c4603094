import { type PaymentRequest, type PaymentSource, toOrderAmount } from '@gatewaykit/core';
import type { BigNumberInput, PaymentProviderContext } from '@medusajs/framework/types';
import { MathBN, MedusaError } from '@medusajs/framework/utils';
import type { GatewaykitOptions } from './options';
import type { GatewaykitSessionData } from './session-data';

const CALLBACK_PATH = '/hooks/gatewaykit/callback';
const RETURN_PATH = '/hooks/gatewaykit/return';

/** Medusa amounts are major units (number, string, BigNumber or {value, precision}). */
export function gatewayAmount(amount: BigNumberInput, currencyCode: string): string {
  return toOrderAmount(MathBN.convert(amount).toFixed(), currencyCode.toUpperCase());
}

/** Builds core's PaymentRequest from a session; core then decides which gateway operation to call. */
export function buildPaymentRequest(input: {
  options: GatewaykitOptions;
  data: Partial<GatewaykitSessionData>;
  source: PaymentSource;
  context?: PaymentProviderContext | undefined;
}): PaymentRequest {
  const { options, data, context } = input;
  const buyer = data.buyer;
  const customer = context?.customer;
  const email = buyer?.email || customer?.email;
  const firstName = buyer?.firstName || customer?.first_name;
  const lastName = buyer?.lastName || customer?.last_name;
  if (!buyer?.billingAddress || !email || !firstName || !lastName) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'The cart needs an email and a billing address with first and last name before a gatewaykit payment session is created',
    );
  }
  // A card charge names a gateway customer only as the card rule decided (core's resolveCardMethod):
  // the owner of a saved card, or the shopper who asked to save the card. A customerId on the charge
  // binds an element card to that customer, so it is never added for a card the shopper did not save.
  const gatewayCustomerId =
    input.source.kind === 'saved-card'
      ? input.source.customerId
      : (data.gatewayCustomerId ?? (context?.account_holder?.data as { id?: string } | undefined)?.id);
  return {
    source: input.source,
    orderNo: data.orderNo!,
    amount: data.amount!,
    currency: data.currency!,
    customer: { email, firstName, lastName, phone: buyer.phone, gatewayCustomerId },
    billingAddress: buyer.billingAddress,
    shippingAddress: buyer.shippingAddress,
    items: buyer.items,
    customerIp: buyer.ip || '127.0.0.1',
    webSite: options.webSite!,
    returnUrl: `${options.backendUrl}${RETURN_PATH}`,
    callbackUrl: `${options.backendUrl}${CALLBACK_PATH}`,
  };
}
