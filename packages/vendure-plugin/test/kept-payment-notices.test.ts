import { type Injector, Order, RequestContext, TransactionalConnection } from '@vendure/core';
import { describe, expect, it } from 'vitest';
import { gatewaykitPaymentHandler, NO_VOID } from '../src/config/payment-handler';

const ctx = RequestContext.empty();
const chargeback = { batchNo: 'CB1', tradeNo: 'T1', amount: '1.00', currency: 'USD' };

/**
 * A connection on `type` whose payment row holds `metadata` as committed; `steps` records the row locks
 * and reads in the order they happen.
 */
function connectionWith(metadata: Record<string, unknown> | null, type = 'postgres') {
  const steps: string[] = [];
  const chain = (entity: unknown) => {
    const name = entity === Order ? 'order' : 'payment';
    const query = {
      select: () => query,
      where: () => query,
      setLock: (mode: string) => {
        steps.push(`lock ${name} ${mode}`);
        return query;
      },
      getOne: async () => {
        steps.push(`read ${name}`);
        return entity === Order ? { id: 10, state: 'PaymentSettled' } : { id: 7, metadata };
      },
    };
    return query;
  };
  const connection = {
    rawConnection: { options: { type } },
    getRepository: (_ctx: unknown, entity: unknown) => ({ createQueryBuilder: () => chain(entity) }),
  };
  gatewaykitPaymentHandler.init?.({
    get: (token: unknown) => (token === TransactionalConnection ? connection : {}),
  } as unknown as Injector);
  return steps;
}

/** The payment as Vendure read it before calling the handler: nothing kept by a notice yet. */
const stale = { id: 7, state: 'Settled', metadata: { orderNo: 'ABC-1', tradeNo: 'T1' } };
const order = { id: 10, code: 'ABC' };

/** Vendure 3.7's PaymentService: the metadata it saves is the one it read, merged with the handler's. */
const saved = (answer: { metadata?: Record<string, unknown> }) => ({ ...stale.metadata, ...answer.metadata });

const cancel = (payment = stale) =>
  gatewaykitPaymentHandler.cancelPayment(ctx, order as never, payment as never, [], {} as never);

describe("the handler's settlePayment and cancelPayment answer what notices kept meanwhile", () => {
  it('attack: a chargeback kept after Vendure read the payment survives an admin cancelPayment (row lock first, then the read)', async () => {
    const steps = connectionWith({ ...stale.metadata, chargebacks: [chargeback] });
    const answer = await cancel();
    expect(answer).toMatchObject({ success: false, state: 'Settled', errorMessage: NO_VOID });
    expect(saved(answer as never)).toEqual({ ...stale.metadata, chargebacks: [chargeback] });
    expect(steps).toEqual(['lock order for_no_key_update', 'read order', 'read payment']);
  });

  it('attack: a refund made outside Vendure (portalRefunds, never listed again) survives an admin settlePayment', async () => {
    connectionWith({ ...stale.metadata, portalRefunds: ['B77'] });
    const answer = await gatewaykitPaymentHandler.settlePayment(
      ctx,
      order as never,
      stale as never,
      [],
      {} as never,
    );
    expect(answer).toMatchObject({ success: true });
    expect(saved(answer as never)).toEqual({ ...stale.metadata, portalRefunds: ['B77'] });
  });

  it("on MySQL the payment is read with a locking read (REPEATABLE READ's plain read sees Vendure's own snapshot)", async () => {
    const steps = connectionWith({ ...stale.metadata, chargebacks: [chargeback] }, 'mysql');
    expect(saved((await cancel()) as never)).toEqual({ ...stale.metadata, chargebacks: [chargeback] });
    expect(steps).toEqual([
      'lock order pessimistic_write',
      'read order',
      'lock payment pessimistic_read',
      'read payment',
    ]);
  });

  it('answers no metadata for a payment without any (Vendure keeps what it read)', async () => {
    connectionWith(null);
    expect(await cancel({ ...stale, state: 'Declined' })).toEqual({ success: true });
  });
});
