import { Logger } from '@vendure/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GatewaykitPaymentAttempt } from '../src/entity/payment-attempt.entity';
import { HandOver } from '../src/service/hand-over.service';

/**
 * What the reconciliation leaves to a person is said once, inside the order's exclusive section, and
 * only while it is still due as read there (docs/safety-rules.md).
 */
describe('HandOver', () => {
  const row = {
    orderCode: 'O1',
    orderNo: 'O1-1',
    channelId: '1',
    paymentMethodCode: 'card',
  } as GatewaykitPaymentAttempt;
  const tx = { tx: true };
  const setup = (notedBefore = false) => {
    const sections: string[] = [];
    const noteOnce = vi.fn(async (_ctx: unknown, _orderId: unknown, _text: string) => !notedBefore);
    const handOver = new HandOver(
      { noteOnce } as never,
      {
        attemptsOf: () => ({
          inTransaction: async (orderNo: string, work: (ctx: unknown) => Promise<unknown>) => {
            sections.push(orderNo);
            return work(tx);
          },
        }),
      } as never,
    );
    return { handOver, noteOnce, sections };
  };
  afterEach(() => vi.restoreAllMocks());

  it('says it once on the order, in the order section, and in the error log', async () => {
    const error = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    const { handOver, noteOnce, sections } = setup();
    const said = await handOver.say(row, '10', 'look it up', async () => ({}) as never);
    expect(said).toBe('said on the order');
    expect(sections).toEqual(['O1-1']);
    expect(noteOnce).toHaveBeenCalledWith(tx, '10', 'look it up');
    expect(error).toHaveBeenCalledWith('Order O1: look it up', expect.any(String));
  });

  it('says nothing more when the order has the note already', async () => {
    const error = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    const { handOver } = setup(true);
    expect(await handOver.say(row, '10', 'look it up', async () => ({}) as never)).toBe(
      'left to a person (said on the order before)',
    );
    expect(error).not.toHaveBeenCalled();
  });

  it('says nothing when what it is about was settled meanwhile (read inside the section)', async () => {
    const { handOver, noteOnce } = setup();
    const stillDue = vi.fn(async () => false);
    expect(await handOver.say(row, '10', 'look it up', async () => ({}) as never, stillDue)).toBe(
      'settled meanwhile: nothing said',
    );
    expect(stillDue).toHaveBeenCalledWith(tx);
    expect(noteOnce).not.toHaveBeenCalled();
  });

  it('a channel that is gone: said in the error log only', async () => {
    const error = vi.spyOn(Logger, 'error').mockImplementation(() => undefined);
    const { handOver, noteOnce, sections } = setup();
    expect(await handOver.say(row, '10', 'look it up', async () => undefined)).toBe(
      'left to a person; its channel is gone, said in the log',
    );
    expect(sections).toEqual([]);
    expect(noteOnce).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledWith('Order O1: look it up (its channel is gone)', expect.any(String));
  });
});
