/** Hosted checkout (operation 12) and local payment (operation 13) requests (docs/gateway-protocol.md#hosted-checkout-and-local-payment). */
import { z } from 'zod';
import { isLocalPaymentMethodName, LOCAL_PAYMENT_METHODS } from '../local-methods.js';
import { orderResultSchema } from './charges.js';
import { currencyCode, goodsDetails, isMobile, orderAmount, refineOrderAmount } from './common.js';
import { withFastForm } from './fast-forms.js';

// Required fields and lengths are "not shown" for these two operations; the charge request's
// limits are used as the safe bounds, and the fields every official plugin sends are required.
export const billingAddress = z.object({
  address: z.string().max(500).optional(),
  city: z.string().max(100).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 country code')
    .optional(),
  email: z.string().min(2).max(200),
  firstName: z.string().min(1).max(100),
  lastName: z.string().min(1).max(50),
  phone: z.string().max(50).optional(),
  state: z.string().max(50).optional(),
  zip: z.string().max(30).optional(),
});

export const deliveryAddress = z.object({
  shipAddress: z.string().max(500).optional(),
  shipCity: z.string().max(100).optional(),
  shipCountry: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 country code')
    .optional(),
  shipFirstName: z.string().max(100).optional(),
  shipLastName: z.string().max(100).optional(),
  shipPhone: z.string().max(50).optional(),
  shipState: z.string().max(50).optional(),
  shipZip: z.string().max(30).optional(),
});

const hostedFields = {
  orderNo: z.string().min(1).max(50),
  orderAmount,
  orderCurrency: currencyCode,
  paymentMethod: z.string().min(1).max(100),
  customerId: z.string().max(100).optional(),
  callbackUrl: z.string().min(1).max(1000).optional(),
  returnUrl: z.string().min(1).max(1000),
  isMobile: isMobile.optional(),
  platform: z.string().max(10).optional(),
  remark: z.string().max(500).optional(),
  goodsDetails: goodsDetails.optional(),
  billingAddress: billingAddress.optional(),
  deliveryAddress: deliveryAddress.optional(),
  // Sent by the official SDK/plugins although the request table omits them (docs/gateway-protocol.md#hosted-checkout-and-local-payment).
  webSite: z.string().max(200).optional(),
  customerIp: z.string().max(50).optional(),
};

export const checkoutPaymentRequestSchema = withFastForm((timing) =>
  z.object(hostedFields).superRefine(refineOrderAmount, timing),
);

export const localPaymentRequestSchema = withFastForm((timing) =>
  z.object(hostedFields).superRefine((value, ctx) => {
    refineOrderAmount(value, ctx);
    if (typeof value.paymentMethod === 'string' && !isLocalPaymentMethodName(value.paymentMethod)) {
      ctx.addIssue({
        code: 'custom',
        path: ['paymentMethod'],
        message: `must be one of ${LOCAL_PAYMENT_METHODS.join(', ')}`,
      });
    }
  }, timing),
);

/** Pre-order result of checkout/payment and local_payment. */
export const preOrderResultSchema = orderResultSchema;

export type CheckoutPaymentRequest = z.input<typeof checkoutPaymentRequestSchema>;
export type LocalPaymentRequest = z.input<typeof localPaymentRequestSchema>;
export type PreOrderResult = z.output<typeof preOrderResultSchema>;
