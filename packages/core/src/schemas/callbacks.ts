/** Callback (webhook) body `{type, data}` (docs/callbacks-and-returns.md#event-types). */
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

const KNOWN_TYPES: ReadonlySet<string> = new Set(CALLBACK_EVENT_TYPES);

/** Whether core knows what the event type means (docs/callbacks-and-returns.md#event-types). */
export function isKnownCallbackEventType(type: string): type is CallbackEventType {
  return KNOWN_TYPES.has(type);
}

/**
 * A value of callback `data` as kept: primitives as strings, objects and arrays with their contents
 * (a null, also inside an array, becomes undefined).
 */
export type CallbackValue =
  | string
  | (CallbackValue | undefined)[]
  | { [field: string]: CallbackValue | undefined };

/** Primitives are read as strings whatever JSON type the gateway used; null becomes absent. */
const callbackScalar = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .transform((value) => (value === null ? undefined : String(value)));

/** Any value, nested objects and arrays kept (only the primitives inside are read as strings). */
const callbackValue: z.ZodType<CallbackValue | undefined> = z.lazy(() =>
  z.union([callbackScalar, z.array(callbackValue), z.record(z.string(), callbackValue)]),
);

/**
 * A documented string field: read as a string; a value of another shape is left out rather than
 * refusing a correctly signed callback (the gateway would retry it for many hours).
 */
const documentedString = callbackScalar.optional().catch(undefined);

/** `chargebackInfo` of `chargeback.success` (docs/callbacks-and-returns.md#event-data); other keys the gateway adds are kept. */
const chargebackInfo = z
  .object({ replyDeadline: documentedString, cpdDate: documentedString })
  .catchall(callbackValue)
  .optional()
  .catch(undefined);

/** The `data` fields docs/callbacks-and-returns.md#event-data documents per event family; anything else is kept as sent. */
const callbackDataSchema = z
  .object({
    orderNo: documentedString,
    tradeNo: documentedString,
    orderAmount: documentedString,
    orderCurrency: documentedString,
    orderStatus: documentedString,
    orderInfo: documentedString,
    maskCardNo: documentedString,
    remark: documentedString,
    transactionType: documentedString,
    operationResult: documentedString,
    reason: documentedString,
    amount: documentedString,
    currency: documentedString,
    batchNo: documentedString,
    noticeDate: documentedString,
    merTrackNo: documentedString,
    chargebackInfo,
  })
  .catchall(callbackValue);

/**
 * The `type` is any non-empty text: a correctly signed event of a type core does not know is
 * acknowledged and logged, never refused, because the gateway would retry a refused one for many hours
 * (docs/callbacks-and-returns.md#unknown-event-types). `isKnownCallbackEventType` tells them apart.
 */
export const callbackEventSchema = z.object({
  type: z.string().min(1),
  data: callbackDataSchema,
});

export interface ChargebackInfo {
  /** Last day to answer the chargeback. */
  replyDeadline?: string | undefined;
  cpdDate?: string | undefined;
  [field: string]: CallbackValue | undefined;
}

export interface CallbackData {
  orderNo?: string | undefined;
  tradeNo?: string | undefined;
  orderAmount?: string | undefined;
  orderCurrency?: string | undefined;
  orderStatus?: string | undefined;
  orderInfo?: string | undefined;
  maskCardNo?: string | undefined;
  remark?: string | undefined;
  /** transaction.*: e.g. `Sale`. */
  transactionType?: string | undefined;
  /** pre-authorized.*: e.g. `Success`. */
  operationResult?: string | undefined;
  /** refund.* and chargeback.success. */
  reason?: string | undefined;
  amount?: string | undefined;
  currency?: string | undefined;
  batchNo?: string | undefined;
  noticeDate?: string | undefined;
  merTrackNo?: string | undefined;
  /** chargeback.success. */
  chargebackInfo?: ChargebackInfo | undefined;
  [field: string]: CallbackValue | undefined;
}

export interface CallbackEvent {
  /** One of CALLBACK_EVENT_TYPES, or a type core does not know (kept as sent). */
  type: CallbackEventType | (string & {});
  data: CallbackData;
}
