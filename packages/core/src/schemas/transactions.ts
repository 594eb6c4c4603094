/**
 * Transaction and chargeback queries on the OpenAPI host
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks): the gateway's own records, read to
 * settle payments whose answer and notification were lost.
 */
import { z } from 'zod';
import {
  looseString,
  pagingFields,
  queryTime,
  type RecordStatus,
  readRecordStatus,
  requiredString,
} from './common.js';

/** Query of `GET /transactions` and `GET /chargebacks`. */
export const recordQuerySchema = z
  .object({
    startTime: queryTime,
    endTime: queryTime,
    orderNo: z.string().min(1).max(50).optional(),
    tradeNo: z.string().min(1).max(64).optional(),
    pageIndex: z.number().int().min(1).max(9_999_999_999).optional(),
    pageSize: z.number().int().min(1).max(1000).optional(),
  })
  // The fixed-width form orders like the times it writes.
  .refine((query) => query.endTime >= query.startTime, {
    path: ['endTime'],
    message: 'must not be before startTime',
  });

export const listTransactionsQuerySchema = recordQuerySchema;
export const listChargebacksQuerySchema = recordQuerySchema;

/** One trade as the gateway recorded it (fields beyond these are kept as sent). */
export interface TransactionRecord {
  orderNo: string;
  tradeNo: string;
  tradeDate: string;
  tradeStatus: RecordStatus;
  /** The gateway's status text when it is none of the three (then `tradeStatus` is `pending`). */
  tradeStatusText?: string | undefined;
  tradeInfo?: string | undefined;
  tradeAmount: string;
  tradeCurrency: string;
  [field: string]: unknown;
}

/** One trade as the gateway recorded it; `tradeStatusText` keeps a status that is not one of the three. */
export const transactionRecordSchema = z
  .looseObject({
    orderNo: requiredString,
    tradeNo: requiredString,
    tradeDate: requiredString,
    tradeStatus: looseString,
    tradeInfo: looseString,
    tradeAmount: requiredString,
    tradeCurrency: requiredString,
  })
  .transform((record): TransactionRecord => {
    const { status, known } = readRecordStatus(record.tradeStatus);
    return known
      ? { ...record, tradeStatus: status }
      : { ...record, tradeStatus: status, tradeStatusText: record.tradeStatus };
  });

/** A chargeback raised on a trade (fields beyond these are kept as sent). */
export interface ChargebackRecord {
  batchNo: string;
  tradeNo: string;
  orderNo?: string | undefined;
  amount: string;
  currency: string;
  reason?: string | undefined;
  /** Last day to answer the chargeback. */
  replyDeadline?: string | undefined;
  cpdDate?: string | undefined;
  noticeDate?: string | undefined;
  [field: string]: unknown;
}

/** A chargeback; the deadline dates may also sit in a `chargebackInfo` object, as in the notification. */
export const chargebackRecordSchema = z
  .looseObject({
    batchNo: requiredString,
    tradeNo: requiredString,
    orderNo: looseString,
    amount: requiredString,
    currency: requiredString,
    reason: looseString,
    replyDeadline: looseString,
    cpdDate: looseString,
    noticeDate: looseString,
    chargebackInfo: z.looseObject({ replyDeadline: looseString, cpdDate: looseString }).nullish(),
  })
  .transform(
    ({ chargebackInfo, ...record }): ChargebackRecord => ({
      ...record,
      replyDeadline: record.replyDeadline ?? chargebackInfo?.replyDeadline,
      cpdDate: record.cpdDate ?? chargebackInfo?.cpdDate,
    }),
  );

/** A `{page, list}` answer: `list` and the paging fields are accepted inside `page` or beside it. */
function recordListSchema<S extends z.ZodType>(item: S) {
  const list = z.array(item).nullish();
  return z
    .looseObject({ ...pagingFields, list, page: z.looseObject({ ...pagingFields, list }).nullish() })
    .transform((data) => {
      const page = data.page ?? {};
      const items: z.output<S>[] = page.list ?? data.list ?? [];
      return {
        page: {
          total: page.total ?? data.total ?? items.length,
          pageSize: page.pageSize ?? data.pageSize ?? items.length,
          pageIndex: page.pageIndex ?? data.pageIndex ?? 1,
        },
        list: items,
      };
    });
}

export const transactionListSchema = recordListSchema(transactionRecordSchema);
export const chargebackListSchema = recordListSchema(chargebackRecordSchema);

export type RecordQuery = z.input<typeof recordQuerySchema>;
export type ListTransactionsQuery = RecordQuery;
export type ListChargebacksQuery = RecordQuery;
export type TransactionList = z.output<typeof transactionListSchema>;
export type ChargebackList = z.output<typeof chargebackListSchema>;
