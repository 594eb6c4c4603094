/** Callback (webhook) body `{type, data}` (reference/gateway.md §6.2–6.3). */
import { z } from 'zod';

export const CALLBACK_EVENT_TYPES = [
  'transaction.success',
  'transaction.fail',
  'transaction.pending',
  'transaction.clear',
  'pre-authorized.captured',
  'pre-authorized.void',
  'refund.success',
  'refund.fail',
  'chargeback.success',
] as const;

export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

/** Values of `data` are read as strings whatever JSON type the gateway used; null becomes absent. */
const callbackValue = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .transform((value) => (value === null ? undefined : String(value)));

export const callbackEventSchema = z.object({
  type: z.enum(CALLBACK_EVENT_TYPES),
  data: z.record(z.string(), callbackValue.or(z.unknown().transform(() => undefined))),
});

export interface CallbackData {
  orderNo?: string;
  tradeNo?: string;
  orderAmount?: string;
  orderCurrency?: string;
  orderStatus?: string;
  orderInfo?: string;
  maskCardNo?: string;
  remark?: string;
  [field: string]: string | undefined;
}

export interface CallbackEvent {
  type: CallbackEventType;
  data: CallbackData;
}
