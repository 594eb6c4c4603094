/** Stored payment method requests and results (docs/gateway-protocol.md#payment-methods, operations 2–7). */
import { z } from 'zod';
import { billingDetailWith, card, looseString } from './common.js';
import { withFastForm } from './fast-forms.js';

export const createPaymentMethodRequestSchema = withFastForm((timing) =>
  z.object({
    billingDetail: billingDetailWith(timing),
    card: card.omit({ brand: true, last4: true }),
    customerId: z.string().min(1).max(100).optional(),
  }),
);

export const updatePaymentMethodRequestSchema = withFastForm((timing) =>
  z.object({
    customerPaymentMethodId: z.string().min(1).max(100),
    billingDetail: billingDetailWith(timing),
  }),
);

const resultAddress = z
  .looseObject({
    city: looseString,
    country: looseString,
    line1: looseString,
    line2: looseString,
    postalCode: looseString,
    state: looseString,
  })
  .nullish();

export const paymentMethodSchema = z.looseObject({
  customerPaymentMethodId: z.string().min(1),
  card: z.looseObject({ last4: looseString, brand: looseString }).nullish(),
  billingDetail: z
    .looseObject({
      email: looseString,
      firstName: looseString,
      lastName: looseString,
      phone: looseString,
      address: resultAddress,
    })
    .nullish(),
  customerId: looseString,
});

/** The list is "a different structure, not shown"; the official plugins read `data` as an array. Accept `{list}` too. */
export const paymentMethodListSchema = z
  .union([
    z.array(paymentMethodSchema),
    z.looseObject({ list: z.array(paymentMethodSchema).nullish() }),
    z.null(),
  ])
  .transform((data) => (data === null ? [] : Array.isArray(data) ? data : (data.list ?? [])));

/** Attach/detach answer `data` of an unknown shape: a payment method, or nothing. */
export const paymentMethodOrNothingSchema = z
  .union([paymentMethodSchema, z.null(), z.undefined(), z.looseObject({}), z.string(), z.boolean()])
  .transform((data) =>
    data && typeof data === 'object' && 'customerPaymentMethodId' in data
      ? (data as z.output<typeof paymentMethodSchema>)
      : null,
  );

export type CreatePaymentMethodRequest = z.input<typeof createPaymentMethodRequestSchema>;
export type UpdatePaymentMethodRequest = z.input<typeof updatePaymentMethodRequestSchema>;
export type PaymentMethod = z.output<typeof paymentMethodSchema>;
