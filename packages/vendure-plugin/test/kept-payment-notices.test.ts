import { type Injector, Order, Payment, RequestContext, TransactionalConnection } from '@vendure/core';
import { describe, expect, it } from 'vitest';
import { gatewaykitPaymentHandler, NO_VOID } from '../src/config/payment-handler';

const ctx = RequestContext.empty();
const chargeback = { batchNo: 'CB1', tradeNo: 'T1', amount: '1.00', currency: 'USD' };

/**
 * A connection whose payment row holds `metadata` as committed; `steps` records the order row lock and
 * the payment read in the order they happen.
 */
function connectionWith(metadata: Record<string, unknown>) {
  const steps: string[] = [];
  const chain = {
    select: () => chain,
    where: () => chain,
    setLock: (mode: string) => {
      steps.push(`lock order ${mode}`);
      return chain;
    },
    getOne: async () => ({ id: 10, state: 'PaymentSettled' }),
  };
  const connection = {
    rawConnection: { options: { type: 'postgres' } },
    getRepository: (_ctx: unknown, entity: unknown) =>
      entity === Order
        ? { createQueryBuilder: () => chain }
        : {
            findOne: async () => {
              steps.push(entity === Payment ? 'read payment' : 'read ?');
              return { id: 7, metadata };
            },
          },
  };
  gatewaykitPaymentHandler.init?.({
    get: (token: unknown) => (token === TransactionalConnection ? connection : {}),
  } as unknown as Injector);
  return steps;
}

/** The payment as Vendure read it before calling the handler: no chargeback yet. */
const stale = { id: 7, state: 'Settled', metadata: { orderNo: 'ABC-1', tradeNo: 'T1' } };
const order = { id: 10, code: 'ABC' };

/** Vendure 3.7's PaymentService: the metadata it saves is the one it read, merged with the handler's. */
const saved = (answer: { metadata?: Record<string, unknown> }) => ({ ...stale.metadata, ...answer.metadata });

describe("the handler's settlePayment and cancelPayment answer the chargebacks kept meanwhile", () => {
  it('attack: a chargeback kept after Vendure read the payment survives an admin cancelPayment (row lock first, then the read)', async () => {
    const steps = connectionWith({ ...stale.metadata, chargebacks: [chargeback] });
    const answer = await gatewaykitPaymentHandler.cancelPayment(
      ctx,
      order as never,
      stale as never,
      [],
      {} as never,
    );
    expect(answer).toMatchObject({ success: false, state: 'Settled', errorMessage: NO_VOID });
    expect(saved(answer as never)).toEqual({ ...stale.metadata, chargebacks: [chargeback] });
    expect(steps).toEqual(['lock order for_no_key_update', 'read payment']);
  });

  it('attack: the same for an admin settlePayment of a Settled payment', async () => {
    connectionWith({ ...stale.metadata, chargebacks: [chargeback] });
    const answer = await gatewaykitPaymentHandler.settlePayment(
      ctx,
      order as never,
      stale as never,
      [],
      {} as never,
    );
    expect(answer).toMatchObject({ success: true });
    expect(saved(answer as never)).toEqual({ ...stale.metadata, chargebacks: [chargeback] });
  });

  it('answers no metadata when the payment keeps no chargebacks (Vendure keeps what it read)', async () => {
    connectionWith({ ...stale.metadata });
    const declined = { ...stale, state: 'Declined' };
    expect(
      await gatewaykitPaymentHandler.cancelPayment(ctx, order as never, declined as never, [], {} as never),
    ).toEqual({ success: true });
  });
});
