/**
 * Sending a refund, and what its answer means (docs/safety-rules.md#unknown-outcome). Both platforms
 * send refunds through this, so they read a lost answer, a refusal and the answer's status the same way.
 */
import type { GatewayClient } from './client.js';
import { type GatewayError, isGatewayError, UnknownOutcomeError } from './errors.js';
import { readRecordStatus } from './schemas/common.js';
import type { CreateRefundRequest } from './schemas/refunds.js';

export type RefundSendResult =
  /**
   * The gateway took the refund: its batchNo, and the status its answer gives. `pending` (what it
   * usually says) waits for the refund notice.
   */
  | { kind: 'answered'; batchNo: string; status: 'pending' | 'succeeded' | 'failed' }
  /** Nothing was refunded: a published refusal, input the client refused, or a request that never left. */
  | { kind: 'refused'; error: GatewayError }
  /**
   * The refund may have been made (the answer was lost, unreadable, or something unexpected broke):
   * never send it again; its notice, which names the merTrackNo, or the reconciliation decides.
   */
  | { kind: 'unknown'; error: unknown };

export async function sendRefund(
  client: Pick<GatewayClient, 'refunds'>,
  request: CreateRefundRequest,
): Promise<RefundSendResult> {
  let answer: Awaited<ReturnType<GatewayClient['refunds']['create']>>;
  try {
    answer = await client.refunds.create(request);
  } catch (error) {
    if (isGatewayError(error) && !(error instanceof UnknownOutcomeError)) return { kind: 'refused', error };
    return { kind: 'unknown', error };
  }
  const { status } = readRecordStatus(answer.refundStatus);
  return {
    kind: 'answered',
    batchNo: answer.batchNo,
    status: status === 'success' ? 'succeeded' : status === 'fail' ? 'failed' : 'pending',
  };
}
