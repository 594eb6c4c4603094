/** Charge confirmation request and result (docs/gateway-protocol.md#confirmcharge, operation 1). */
import { z } from 'zod';
import {
  addressWith,
  billingDetailWith,
  card,
  currencyCode,
  goodsDetails,
  isMobile,
  looseString,
  orderAmount,
  refineOrderAmount,
} from './common.js';
import { EVEN_WITH_FIELD_ISSUES, type RuleTiming, withFastForm } from './fast-forms.js';

export const TOKEN_TYPES = ['InitRecurring', 'Recurring'] as const;

export const ORDER_STATUSES = ['pending', 'success', 'fail'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const shippingWith = (timing: RuleTiming) =>
  z.object({
    firstName: z.string().max(100).optional(),
    lastName: z.string().max(100).optional(),
    phone: z.string().max(50).optional(),
    email: z.string().max(200).optional(),
    address: addressWith(timing).optional(),
  });

const customerPaymentMethodWith = (timing: RuleTiming) =>
  z.object({ billingDetail: billingDetailWith(timing), card });

// Building blocks of the charge request, still exported as they were (in their form for messages).
export const shipping = shippingWith(EVEN_WITH_FIELD_ISSUES);
export const customerPaymentMethod = customerPaymentMethodWith(EVEN_WITH_FIELD_ISSUES);

export const confirmChargeRequestSchema = withFastForm((timing) =>
  z
    .object({
      orderNo: z.string().min(1).max(50),
      orderAmount,
      orderCurrency: currencyCode,
      customerIp: z.string().min(1).max(50),
      returnUrl: z.string().min(1).max(1000),
      webSite: z.string().min(1).max(200),
      callbackUrl: z.string().min(1).max(1000).optional(),
      customerId: z.string().min(1).max(100).optional(),
      customerPaymentMethodId: z.string().min(1).max(100).optional(),
      customerPaymentMethod: customerPaymentMethodWith(timing).optional(),
      goodsDetails: goodsDetails.optional(),
      isMobile: isMobile.optional(),
      platform: z.string().min(1).max(10).optional(),
      remark: z.string().max(500).optional(),
      shipping: shippingWith(timing).optional(),
      tokenType: z.enum(TOKEN_TYPES).optional(),
      priorityThreeDSecure: z
        .string()
        .max(20)
        .refine((value) => value.toLowerCase() === 'any' || value === 'automatic', {
          message: 'must be "any" (any case) or "automatic"',
        })
        .optional(),
    })
    .superRefine((value, ctx) => {
      refineOrderAmount(value, ctx);
      const hasId = value.customerPaymentMethodId !== undefined;
      const hasCard = value.customerPaymentMethod !== undefined;
      if (hasId === hasCard) {
        ctx.addIssue({
          code: 'custom',
          path: ['customerPaymentMethodId'],
          message: hasId
            ? 'send either customerPaymentMethodId or customerPaymentMethod, not both'
            : 'either customerPaymentMethodId or customerPaymentMethod is required',
        });
      }
      if (TOKEN_TYPES.includes(value.tokenType as never) && !value.customerId) {
        ctx.addIssue({
          code: 'custom',
          path: ['customerId'],
          message: `is required when tokenType is ${value.tokenType}`,
        });
      }
      if (value.tokenType === 'Recurring' && !hasId) {
        ctx.addIssue({
          code: 'custom',
          path: ['customerPaymentMethodId'],
          message: 'is required when tokenType is Recurring',
        });
      }
    }, timing),
);

/** Result of confirmCharge, checkout/payment and local_payment: specified fields read strictly, the rest loosely. */
export const orderResultSchema = z.looseObject({
  orderNo: z.string().min(1),
  tradeNo: looseString,
  orderAmount: looseString,
  orderCurrency: looseString,
  orderStatus: z.enum(ORDER_STATUSES),
  orderInfo: looseString,
  redirectUrl: looseString,
  maskCardNo: looseString,
  riskInfos: looseString,
  remark: looseString,
});

export const chargeResultSchema = orderResultSchema;

export type ConfirmChargeRequest = z.input<typeof confirmChargeRequestSchema>;
export type ChargeResult = z.output<typeof chargeResultSchema>;
