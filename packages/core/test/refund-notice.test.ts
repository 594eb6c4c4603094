import { describe, expect, it } from 'vitest';
import {
  chargebackKey,
  findNoticedRefund,
  judgeRefundNotice,
  type KnownRefund,
  type RefundEvent,
  withUncountedRefund,
} from '../src/index.js';

const open: KnownRefund = {
  state: 'open',
  amount: '5.00',
  currency: 'USD',
  merTrackNo: 'ABC-P7-R1',
  batchNo: 'R1',
  tradeNo: 'T1',
};
const success: RefundEvent = {
  kind: 'refund',
  status: 'succeeded',
  batchNo: 'R1',
  merTrackNo: 'ABC-P7-R1',
  tradeNo: 'T1',
  amount: '5.00',
  currency: 'USD',
};

describe('findNoticedRefund', () => {
  const lost: KnownRefund = { state: 'open', amount: '2.00', currency: 'USD', merTrackNo: 'ABC-P7-R2' };
  const same = (refund: KnownRefund) => refund;

  it('finds the refund by batchNo, or by merTrackNo when its answer was lost', () => {
    expect(findNoticedRefund([open, lost], success, same)).toBe(open);
    expect(findNoticedRefund([open, lost], { batchNo: 'R2', merTrackNo: 'ABC-P7-R2' }, same)).toBe(lost);
    expect(findNoticedRefund([open], { merTrackNo: 'ABC-P7-R1' }, same)).toBe(open);
  });

  it('prefers the open refund when a settled copy carries the same batchNo or merTrackNo', () => {
    const copy: KnownRefund = { ...open, state: 'failed' };
    expect(findNoticedRefund([copy, open], success, same)).toBe(open);
    const lostCopy: KnownRefund = { ...lost, state: 'failed' };
    expect(findNoticedRefund([lostCopy, lost], { merTrackNo: 'ABC-P7-R2' }, same)).toBe(lost);
    expect(findNoticedRefund([copy], success, same)).toBe(copy);
  });

  it('finds nothing for a result about no refund of the store', () => {
    expect(findNoticedRefund([open], { batchNo: 'R9', merTrackNo: 'other' }, same)).toBeUndefined();
    expect(findNoticedRefund([open], {}, same)).toBeUndefined();
    expect(findNoticedRefund([], success, same)).toBeUndefined();
  });
});

describe('judgeRefundNotice', () => {
  it('settles or fails an open refund; the same result again is a repeat', () => {
    expect(judgeRefundNotice(open, success)).toEqual({ kind: 'settle', status: 'succeeded' });
    expect(judgeRefundNotice(open, { ...success, status: 'failed' })).toEqual({
      kind: 'settle',
      status: 'failed',
    });
    expect(judgeRefundNotice({ ...open, state: 'succeeded' }, success)).toEqual({ kind: 'repeat' });
    expect(judgeRefundNotice({ ...open, state: 'failed' }, { ...success, status: 'failed' })).toEqual({
      kind: 'repeat',
    });
  });

  it('never moves a refund back: the other result afterwards is a conflict', () => {
    expect(judgeRefundNotice({ ...open, state: 'succeeded' }, { ...success, status: 'failed' })).toEqual({
      kind: 'conflict',
      settled: 'succeeded',
    });
    expect(judgeRefundNotice({ ...open, state: 'failed' }, success)).toEqual({
      kind: 'conflict',
      settled: 'failed',
    });
  });

  it('attack: a success must name this refund: its amount (any spelling), currency, trade, batch and merTrackNo', () => {
    expect(judgeRefundNotice(open, { ...success, amount: '5' })).toEqual({
      kind: 'settle',
      status: 'succeeded',
    });
    expect(judgeRefundNotice(open, { ...success, amount: '50.00' })).toEqual({
      kind: 'contradicts',
      message: 'it reports 50.00 USD, the refund is 5.00 USD',
    });
    // A success that does not say what it refunded (Medusa settled it before core decided for both).
    expect(judgeRefundNotice(open, { ...success, amount: undefined })).toEqual({
      kind: 'contradicts',
      message: 'it reports no amount USD, the refund is 5.00 USD',
    });
    expect(judgeRefundNotice(open, { ...success, currency: 'EUR' }).kind).toBe('contradicts');
    expect(judgeRefundNotice(open, { ...success, tradeNo: 'T2' }).kind).toBe('contradicts');
    expect(judgeRefundNotice(open, { ...success, batchNo: 'R2' }).kind).toBe('contradicts');
    expect(judgeRefundNotice(open, { ...success, merTrackNo: 'ABC-P7-R9' }).kind).toBe('contradicts');
  });

  it('a failure without an amount refunded nothing and is taken; one naming another amount is not', () => {
    expect(judgeRefundNotice(open, { ...success, status: 'failed', amount: undefined })).toEqual({
      kind: 'settle',
      status: 'failed',
    });
    expect(judgeRefundNotice(open, { ...success, status: 'failed', amount: '9.00' }).kind).toBe(
      'contradicts',
    );
  });

  it('a refund whose answer was lost takes the result that names its merTrackNo', () => {
    const unanswered: KnownRefund = {
      state: 'open',
      amount: '5.00',
      currency: 'USD',
      merTrackNo: 'ABC-P7-R1',
    };
    expect(judgeRefundNotice(unanswered, success)).toEqual({ kind: 'settle', status: 'succeeded' });
  });
});

describe('withUncountedRefund', () => {
  it('keeps a succeeded refund made outside the store once, by batchNo else merTrackNo', () => {
    expect(withUncountedRefund(undefined, success)).toEqual(['R1']);
    expect(withUncountedRefund(['R1'], success)).toBeUndefined();
    expect(withUncountedRefund(['P0'], { ...success, batchNo: undefined })).toEqual(['P0', 'ABC-P7-R1']);
    expect(withUncountedRefund([], { ...success, status: 'failed' })).toBeUndefined();
    expect(withUncountedRefund([], { kind: 'refund', status: 'succeeded' })).toBeUndefined();
  });
});

describe('chargebackKey', () => {
  it('is the batchNo, else what the notice says; a repeat gives the same key, another chargeback another', () => {
    expect(chargebackKey({ batchNo: 'CB1', tradeNo: 'T1' })).toBe('CB1');
    const said = { tradeNo: 'T1', amount: '5.00', currency: 'USD', noticeDate: '2026-01-01 10:00:00' };
    expect(chargebackKey(said)).toBe(chargebackKey({ ...said }));
    expect(chargebackKey(said)).not.toBe(chargebackKey({ ...said, amount: '6.00' }));
    expect(chargebackKey(said)).not.toBe(chargebackKey({ ...said, currency: 'EUR' }));
    expect(chargebackKey(said)).not.toBe(chargebackKey({ ...said, reason: 'fraud' }));
  });
});
