import { describe, expect, it } from 'vitest';
import {
  type CreateRefundRequest,
  GatewayApiError,
  GatewayConnectionError,
  GatewayValidationError,
  sendRefund,
  UnknownOutcomeError,
} from '../src/index.js';

const request: CreateRefundRequest = {
  merTrackNo: 'R1',
  refundAmount: '10.00',
  refundReason: 'test',
  refundType: '2',
  tradeNo: 'T1',
};

const answering = (answer: { batchNo: string; refundStatus?: string }) => ({
  refunds: { create: async () => answer, retrieve: async () => Promise.reject(new Error('not used')) },
});
const throwing = (error: unknown) => ({
  refunds: {
    create: async () => Promise.reject(error),
    retrieve: async () => Promise.reject(new Error('not used')),
  },
});

describe('sendRefund', () => {
  it('reads the answer status tolerantly, as the records are read', async () => {
    for (const [text, status] of [
      ['pending', 'pending'],
      [undefined, 'pending'],
      ['processing', 'pending'],
      ['success', 'succeeded'],
      [' Succeeded ', 'succeeded'],
      ['fail', 'failed'],
      ['FAILED', 'failed'],
    ] as const) {
      const answered = await sendRefund(answering({ batchNo: 'B1', refundStatus: text }) as never, request);
      expect(answered, String(text)).toEqual({ kind: 'answered', batchNo: 'B1', status });
    }
  });

  it('a published refusal, input refused before sending, and a request that never left are refusals', async () => {
    for (const error of [
      new GatewayApiError('refused', { code: 'E1234' }),
      new GatewayValidationError('bad input', []),
      new GatewayConnectionError('ECONNREFUSED'),
    ]) {
      const result = await sendRefund(throwing(error) as never, request);
      expect(result).toEqual({ kind: 'refused', error });
    }
  });

  it('attack: a lost answer, or anything unexpected, may have refunded: unknown, never a refusal', async () => {
    for (const error of [
      new UnknownOutcomeError('lost', 'createRefund'),
      new TypeError('a bug'),
      'a string',
    ]) {
      const result = await sendRefund(throwing(error) as never, request);
      expect(result).toEqual({ kind: 'unknown', error });
    }
  });
});
