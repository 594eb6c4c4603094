/** Refund apply and query on the OpenAPI host (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks). */
import { z } from 'zod';
import {
  looseString,
  positiveAmount,
  type RecordStatus,
  readRecordStatus,
  requiredString,
} from './common.js';

/** `1` refunds the whole trade, `2` a part of it. */
export const REFUND_TYPES = ['1', '2'] as const;
export type RefundType = (typeof REFUND_TYPES)[number];

export const createRefundRequestSchema = z.object({
  /** The merchant's own refund id: it comes back in the refund notification. */
  merTrackNo: z.string().min(1).max(64),
  refundAmount: positiveAmount,
  refundReason: z.string().min(1).max(256),
  refundType: z.enum(REFUND_TYPES, { message: 'must be "1" (full refund) or "2" (partial refund)' }),
  remark: z.string().max(500).optional(),
  /** The gateway's number of the trade to refund. */
  tradeNo: z.string().min(1).max(64),
});

/** Answer of `POST /refund`: the gateway's refund number; the outcome follows as a notification. */
export const createRefundResultSchema = z.looseObject({
  batchNo: requiredString,
  refundStatus: looseString,
});

/** The gateway's record of one refund (fields beyond these are kept as sent). */
export interface RefundRecord {
  batchNo: string;
  merTrackNo?: string | undefined;
  tradeNo?: string | undefined;
  orderNo?: string | undefined;
  refundAmount?: string | undefined;
  refundCurrency?: string | undefined;
  refundStatus: RecordStatus;
  /** The gateway's status text when it is none of the three (then `refundStatus` is `pending`). */
  refundStatusText?: string | undefined;
  refundReason?: string | undefined;
  refundDate?: string | undefined;
  [field: string]: unknown;
}

/** Answer of `GET /refund/{batchNo}`; the status is read tolerantly (`refundStatusText` keeps an unknown one). */
export const refundRecordSchema = z
  .looseObject({
    batchNo: requiredString,
    merTrackNo: looseString,
    tradeNo: looseString,
    orderNo: looseString,
    refundAmount: looseString,
    refundCurrency: looseString,
    refundStatus: looseString,
    refundReason: looseString,
    refundDate: looseString,
  })
  .transform((record): RefundRecord => {
    const { status, known } = readRecordStatus(record.refundStatus);
    return known
      ? { ...record, refundStatus: status }
      : { ...record, refundStatus: status, refundStatusText: record.refundStatus };
  });

export type CreateRefundRequest = z.input<typeof createRefundRequestSchema>;
export type CreateRefundResult = z.output<typeof createRefundResultSchema>;
