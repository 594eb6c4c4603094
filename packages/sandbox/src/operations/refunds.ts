/**
 * `POST /refund` and `GET /refund/{batchNo}` (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks);
 * the ledger is in ../refunds.ts.
 */
import type { SandboxContext } from '../context.js';
import { applyRefund, findRefund, type RefundRequest, refundView } from '../refunds.js';

/** Answers `{ batchNo, refundStatus }`: `success` or `fail` when settled at once, `pending` under the pending control. */
export function createRefund(context: SandboxContext, gatewayNo: string, body: RefundRequest) {
  const refund = applyRefund(context, gatewayNo, body);
  return { batchNo: refund.batchNo, refundStatus: refund.refundStatus };
}

export function retrieveRefund(context: SandboxContext, gatewayNo: string, batchNo: string) {
  return refundView(findRefund(context, gatewayNo, batchNo));
}
