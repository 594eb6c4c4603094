/** The 11 fields the gateway appends to returnUrl (docs/callbacks-and-returns.md#return-fields). */
import { z } from 'zod';
import { ORDER_STATUSES } from './charges.js';

export const returnFieldsSchema = z.object({
  code: z.string(),
  gatewayNo: z.string(),
  maskCardNo: z.string().default(''),
  merNo: z.string(),
  message: z.string(),
  orderAmount: z.string(),
  orderCurrency: z.string(),
  orderInfo: z.string(),
  orderNo: z.string().min(1),
  orderStatus: z.enum(ORDER_STATUSES),
  tradeNo: z.string(),
});

export type ReturnFields = z.output<typeof returnFieldsSchema>;
