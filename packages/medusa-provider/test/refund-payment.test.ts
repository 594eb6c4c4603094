import { GatewayBadRequestError, type GatewayClient, UnknownOutcomeError } from '@gatewaykit/core';
import { describe, expect, it, vi } from 'vitest';
import { GatewaykitHostedService } from '../src/providers/gatewaykit/hosted';
import { OPTIONS } from './fake-provider';

const PAID = {
  orderNo: 'payses_PAID',
  mode: 'hosted',
  amount: '60.00',
  currency: 'USD',
  attemptedAt: '2026-01-02T03:00:00.000Z',
  outcome: { orderNo: 'payses_PAID', status: 'succeeded', tradeNo: 'T1', amount: '60.00', currency: 'USD' },
};

/** The hosted service with a fake `refunds.create` and, optionally, the payment module's services. */
function serviceWith(
  create: (body: Record<string, unknown>) => Promise<unknown>,
  options: Record<string, unknown> = {},
  cradle: Record<string, unknown> = {},
) {
  const fake = { refunds: { create: vi.fn(create) } };
  class TestHostedService extends GatewaykitHostedService {
    protected override get client(): GatewayClient {
      return fake as unknown as GatewayClient;
    }
  }
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const service = new TestHostedService({ logger, ...cradle } as never, { ...OPTIONS, ...options } as never);
  return { service, create: fake.refunds.create, logger };
}

const refundInput = (amount: number, data: Record<string, unknown> = PAID, id = 'ref_1') => ({
  amount,
  data,
  context: { idempotency_key: id },
});

describe('refundPayment through the gateway', () => {
  it('sends the whole trade as a full refund named by Medusa refund id and records it', async () => {
    const { service, create } = serviceWith(async () => ({ batchNo: 'R1', refundStatus: 'success' }));
    const data = (await service.refundPayment(refundInput(60))).data!;
    expect(create).toHaveBeenCalledWith({
      merTrackNo: 'ref_1',
      refundAmount: '60.00',
      refundReason: 'Medusa refund ref_1',
      refundType: '1',
      tradeNo: 'T1',
      remark: 'orderNo payses_PAID',
    });
    expect(data.refunds).toEqual([
      expect.objectContaining({
        merTrackNo: 'ref_1',
        batchNo: 'R1',
        amount: '60.00',
        currency: 'USD',
        refundType: '1',
        status: 'succeeded',
      }),
    ]);
    expect(data.outcome).toEqual(PAID.outcome);
  });

  it('a part is a partial refund (2), pending until its notification', async () => {
    const { service, create } = serviceWith(async () => ({ batchNo: 'R2', refundStatus: 'pending' }));
    const data = (await service.refundPayment(refundInput(12.5))).data!;
    expect(create.mock.calls[0]![0]).toMatchObject({ refundAmount: '12.50', refundType: '2' });
    expect(data.refunds).toEqual([expect.objectContaining({ status: 'pending', batchNo: 'R2' })]);
  });

  it("a refusal is a not-allowed error with the gateway's message (Medusa deletes its refund)", async () => {
    const { service } = serviceWith(async () => {
      throw new GatewayBadRequestError('Gateway refused the request: P0001 refundAmount too high', {
        code: 'P0001',
      });
    });
    await expect(service.refundPayment(refundInput(5))).rejects.toMatchObject({
      type: 'not_allowed',
      message:
        'The gateway refused the refund of 5.00 USD: P0001 refundAmount too high. No refund was recorded.',
    });
  });

  it('a refund the gateway declines at once is refused', async () => {
    const { service } = serviceWith(async () => ({ batchNo: 'R3', refundStatus: 'fail' }));
    await expect(service.refundPayment(refundInput(5))).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(/declined the refund of 5\.00 USD \(batchNo R3\)/),
    });
  });

  it("reads the answer's status as core reads refund records (other spellings, blanks)", async () => {
    const declined = serviceWith(async () => ({ batchNo: 'R3', refundStatus: ' FAILED ' }));
    await expect(declined.service.refundPayment(refundInput(5))).rejects.toMatchObject({
      type: 'not_allowed',
    });
    const made = serviceWith(async () => ({ batchNo: 'R4', refundStatus: 'Succeeded' }));
    const data = (await made.service.refundPayment(refundInput(5))).data!;
    expect(data.refunds).toEqual([expect.objectContaining({ batchNo: 'R4', status: 'succeeded' })]);
  });

  it('attack: an error that is not a gateway refusal may have refunded: kept as unknown, never deleted as refused', async () => {
    const { service, create } = serviceWith(async () => {
      throw new TypeError('a bug after the request was sent');
    });
    const data = (await service.refundPayment(refundInput(5))).data!;
    expect(data.refunds).toEqual([expect.objectContaining({ merTrackNo: 'ref_1', status: 'unknown' })]);
    await service.refundPayment(refundInput(5, data));
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('a lost answer keeps the refund as unknown and returns normally: nothing is sent again', async () => {
    const { service, create, logger } = serviceWith(async () => {
      throw new UnknownOutcomeError('timeout after the request was sent', 'createRefund');
    });
    const data = (await service.refundPayment(refundInput(5))).data!;
    expect(data.refunds).toEqual([expect.objectContaining({ merTrackNo: 'ref_1', status: 'unknown' })]);
    expect((data.refunds as { batchNo?: string }[])[0]!.batchNo).toBeUndefined();
    expect(create).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/answer was lost.*never sent again/));
    // The same refund id again (it is in the data): nothing is sent.
    await service.refundPayment(refundInput(5, data));
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('refuses without sending when there is no successful trade or no refund id', async () => {
    const { service, create } = serviceWith(async () => ({}));
    await expect(
      service.refundPayment(refundInput(5, { ...PAID, outcome: { orderNo: 'x', status: 'pending' } })),
    ).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(/no successful gateway trade/),
    });
    await expect(service.refundPayment({ amount: 5, data: PAID })).rejects.toMatchObject({
      type: 'invalid_data',
    });
    expect(create).not.toHaveBeenCalled();
  });

  it('keeps what a notice stored meanwhile: starts from the payment data as stored now', async () => {
    const stored = {
      ...PAID,
      refunds: [
        {
          merTrackNo: 'ref_0',
          amount: '1.00',
          currency: 'USD',
          refundType: '2',
          status: 'succeeded',
          requestedAt: 'x',
        },
      ],
      chargebacks: [{ batchNo: 'C1', receivedAt: 'y' }],
    };
    // Read before the refund is sent (no chargeback yet), then again after: stored while it was sent.
    const before = { ...stored, chargebacks: undefined };
    const cradle = {
      refundService: {
        retrieve: vi.fn(async () => ({ id: 'ref_1', payment_id: 'pay_1' })),
        list: vi.fn(async () => [{ id: 'ref_0' }, { id: 'ref_1' }]),
      },
      paymentService: {
        retrieve: vi
          .fn()
          .mockResolvedValueOnce({ id: 'pay_1', data: before })
          .mockResolvedValue({ id: 'pay_1', data: stored }),
      },
    };
    const { service } = serviceWith(async () => ({ batchNo: 'R1', refundStatus: 'pending' }), {}, cradle);
    const data = (await service.refundPayment(refundInput(5))).data!;
    expect((data.refunds as { merTrackNo: string }[]).map((r) => r.merTrackNo)).toEqual(['ref_0', 'ref_1']);
    expect(data.chargebacks).toEqual(stored.chargebacks);
  });

  it("answers with the payment data read after the gateway answered, and only this refund's entry put into it: nothing an older copy held comes back", async () => {
    const settled = {
      merTrackNo: 'ref_0',
      amount: '1.00',
      currency: 'USD',
      refundType: '2',
      status: 'succeeded',
      requestedAt: 'x',
    };
    // What Medusa read before calling: ref_0 still pending, and ref_gone, a refund the gateway refused
    // since (its entry taken out, its row deleted).
    const medusaRead = {
      ...PAID,
      refunds: [
        { ...settled, status: 'pending' },
        { ...settled, merTrackNo: 'ref_gone', status: 'unknown', sending: true },
      ],
    };
    const beforeAnswer = { ...PAID, refunds: [{ ...settled, status: 'pending' }] };
    // Written while the request was out: ref_0 settled, a chargeback stored, this refund's own entry.
    const afterAnswer = {
      ...PAID,
      refunds: [
        settled,
        { ...settled, merTrackNo: 'ref_1', amount: '5.00', status: 'unknown', sending: true },
      ],
      chargebacks: [{ batchNo: 'C1', amount: '1.00', currency: 'USD', receivedAt: 'y' }],
    };
    let answered = false;
    const retrieve = vi.fn(async () => ({ id: 'pay_1', data: answered ? afterAnswer : beforeAnswer }));
    const cradle = {
      refundService: {
        retrieve: vi.fn(async () => ({ id: 'ref_1', payment_id: 'pay_1' })),
        list: vi.fn(async () => [{ id: 'ref_0' }, { id: 'ref_1' }]),
      },
      paymentService: { retrieve },
    };
    const { service } = serviceWith(
      async () => {
        answered = true;
        return { batchNo: 'R1', refundStatus: 'pending' };
      },
      {},
      cradle,
    );
    const data = (await service.refundPayment(refundInput(5, medusaRead))).data!;
    expect(data.refunds).toEqual([
      settled,
      expect.objectContaining({ merTrackNo: 'ref_1', batchNo: 'R1', status: 'pending' }),
    ]);
    expect((data.refunds as Record<string, unknown>[])[1]!.sending).toBeUndefined();
    expect(data.chargebacks).toEqual(afterAnswer.chargebacks);
    expect(retrieve).toHaveBeenCalledTimes(2);
  });
});

describe('refundPayment after a chargeback', () => {
  /** The payment module's services: the payment's `stored` data and its refund rows. */
  const moduleWith = (
    stored: Record<string, unknown>,
    rows: { id: string; raw_amount: { value: string } }[],
  ) => ({
    refundService: {
      retrieve: vi.fn(async () => ({ id: 'ref_1', payment_id: 'pay_1' })),
      list: vi.fn(async () => [{ id: 'ref_1', raw_amount: { value: '5' } }, ...rows]),
    },
    paymentService: { retrieve: vi.fn(async () => ({ id: 'pay_1', data: stored })) },
  });

  it('attack: refuses a refund of money a chargeback returned, even one stored after Medusa read the payment', async () => {
    const chargebacks = [{ batchNo: 'C9', amount: '60.00', currency: 'USD', receivedAt: 'y' }];
    for (const [data, stored] of [
      [
        { ...PAID, chargebacks },
        { ...PAID, chargebacks },
      ],
      [PAID, { ...PAID, chargebacks }],
    ] as const) {
      const { service, create } = serviceWith(
        async () => ({ batchNo: 'R1', refundStatus: 'success' }),
        {},
        moduleWith(stored, []),
      );
      await expect(service.refundPayment(refundInput(5, data))).rejects.toThrow(
        /charged back \(chargeback C9\).*nothing is left to refund, not 5\.00 USD.*Nothing was sent to the gateway/,
      );
      expect(create).not.toHaveBeenCalled();
    }
  });

  it("attack: counts Medusa's other refunds of the payment, not only those the gateway answered: two at once, or one whose process died, cannot both take the rest (found by review)", async () => {
    const stored = {
      ...PAID,
      chargebacks: [{ batchNo: 'C9', amount: '50.00', currency: 'USD', receivedAt: 'y' }],
    };
    // Another refund of 5.00 is recorded in Medusa, its gateway answer not stored yet: 10 - 5 left.
    const concurrent = serviceWith(
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      {},
      moduleWith(stored, [{ id: 'ref_0', raw_amount: { value: '5' } }]),
    );
    await expect(concurrent.service.refundPayment(refundInput(5.01, PAID))).rejects.toThrow(
      /only 5\.00 USD is left/,
    );
    expect(concurrent.create).not.toHaveBeenCalled();
    await concurrent.service.refundPayment(refundInput(5, PAID));
    expect(concurrent.create).toHaveBeenCalledTimes(1);
    // A refund the gateway failed gave its amount back.
    const failed = {
      ...stored,
      refunds: [
        {
          merTrackNo: 'ref_0',
          amount: '5.00',
          currency: 'USD',
          refundType: '2',
          status: 'failed',
          requestedAt: 'x',
        },
      ],
    };
    const afterFailure = serviceWith(
      async () => ({ batchNo: 'R2', refundStatus: 'success' }),
      {},
      moduleWith(failed, [{ id: 'ref_0', raw_amount: { value: '5' } }]),
    );
    await afterFailure.service.refundPayment(refundInput(10, PAID));
    expect(afterFailure.create).toHaveBeenCalledTimes(1);
  });

  it('attack: a chargeback on a payment also refunded in the portal blocks every refund (what is left cannot be told)', async () => {
    const stored = {
      ...PAID,
      refundedAtGateway: ['PORTAL1'],
      chargebacks: [{ batchNo: 'C9', amount: '10.00', currency: 'USD', receivedAt: 'y' }],
    };
    const { service, create } = serviceWith(
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      {},
      moduleWith(stored, []),
    );
    await expect(service.refundPayment(refundInput(1, PAID))).rejects.toThrow(
      /refunded outside the store \(batchNo PORTAL1\)/,
    );
    expect(create).not.toHaveBeenCalled();
  });

  it('attack: a payment refunded in the portal (stored since Medusa read it) refuses every refund through Medusa, which does not count it (found by review)', async () => {
    const stored = { ...PAID, refundedAtGateway: ['PORTAL1'] };
    const { service, create } = serviceWith(
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      {},
      moduleWith(stored, []),
    );
    await expect(service.refundPayment(refundInput(1, PAID))).rejects.toThrow(
      /^gatewaykit refund: the payment was refunded outside the store \(batchNo PORTAL1\).*Refund any more in the merchant portal/,
    );
    expect(create).not.toHaveBeenCalled();
  });
});

describe('refundPayment retires the refunded session', () => {
  // Medusa's completion re-reads the cart under its lock and completes only with a payable session:
  // a completion queued behind the compensation that refunds must find none (docs/SECURITY.md §6).
  it('marks the session canceled once the gateway took the refund, or may have', async () => {
    for (const answer of [
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      async () => {
        throw new UnknownOutcomeError('socket hang up', 'refunds.create');
      },
    ]) {
      const paymentSessionService = { update: vi.fn(async () => ({})) };
      const { service } = serviceWith(answer, {}, { paymentSessionService });
      await service.refundPayment(refundInput(60));
      expect(paymentSessionService.update).toHaveBeenCalledWith({ id: 'payses_PAID', status: 'canceled' });
    }
  });

  it('leaves the session payable when the gateway declined or refused the refund', async () => {
    for (const answer of [
      async () => ({ batchNo: 'R1', refundStatus: 'fail' }),
      async () => {
        throw new GatewayBadRequestError('refund amount too large', { code: 'P0001' });
      },
    ]) {
      const paymentSessionService = { update: vi.fn(async () => ({})) };
      const { service } = serviceWith(answer, {}, { paymentSessionService });
      await expect(service.refundPayment(refundInput(60))).rejects.toThrow();
      expect(paymentSessionService.update).not.toHaveBeenCalled();
    }
  });

  it('keeps the refund when the mark cannot be written, and says so', async () => {
    const paymentSessionService = {
      update: vi.fn(async () => {
        throw new Error('connection reset');
      }),
    };
    const { service, logger } = serviceWith(
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      {},
      { paymentSessionService },
    );
    const data = (await service.refundPayment(refundInput(60))).data!;
    expect(data.refunds).toEqual([expect.objectContaining({ merTrackNo: 'ref_1', status: 'succeeded' })]);
    expect(logger.error).toHaveBeenCalledWith(
      expect.stringMatching(/payses_PAID.*could not be marked canceled/),
    );
  });
});

describe('refundPayment, manual refunds', () => {
  it("refuses with the merchant portal and sends nothing (refunds: 'manual')", async () => {
    const { service, create } = serviceWith(async () => ({}), { refunds: 'manual' });
    await expect(service.refundPayment(refundInput(5))).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(/T1.*merchant portal/),
    });
    expect(create).not.toHaveBeenCalled();
  });
});

describe('a refund recorded on its payment before it is sent (lib/refund-records.ts)', () => {
  const LOST = {
    merTrackNo: 'ref_LOST',
    amount: '20.00',
    currency: 'USD',
    refundType: '2',
    status: 'unknown',
    requestedAt: '2026-01-03T00:00:00.000Z',
  };

  /** An answer's statement (merTrackNo twice, then the answered entry twice): what it writes. */
  const answerOf = (bindings: unknown[]) => {
    const entry = JSON.parse(String(bindings[2])) as {
      merTrackNo: string;
      status: string;
      sending?: boolean;
    };
    return `answer ${entry.merTrackNo} ${entry.status}${entry.sending ? ' sending' : ''}`;
  };

  /** The payment module and a database whose statements are recorded next to the gateway's requests. */
  function storeWith(stored: Record<string, unknown>, rowIds: string[], written = true) {
    const events: string[] = [];
    const raw = vi.fn(async (sql: string, bindings: unknown[]) => {
      // The entry in place, the payment id bound last: its recording binds the entry alone (a JSON list),
      // the answer the merTrackNo and the answered entry, twice each, its removal the merTrackNo alone.
      expect(sql).toMatch(/^\s*UPDATE payment\b/);
      const [first] = bindings;
      events.push(
        String(first).startsWith('[')
          ? `record ${JSON.parse(String(first))[0].merTrackNo}`
          : bindings.length === 2
            ? `drop ${first}`
            : answerOf(bindings),
      );
      return { rows: written ? [{ id: 'pay_1' }] : [] };
    });
    const cradle = {
      __pg_connection__: { raw, transaction: vi.fn() },
      refundService: {
        retrieve: vi.fn(async () => ({ id: 'ref_1', payment_id: 'pay_1' })),
        list: vi.fn(async () => rowIds.map((id) => ({ id, raw_amount: { value: '5' } }))),
      },
      paymentService: { retrieve: vi.fn(async () => ({ id: 'pay_1', data: stored })) },
    };
    return { cradle, events, raw };
  }

  it('the entry is committed before the request leaves; a refusal takes it out again (Medusa deletes its row)', async () => {
    const { cradle, events } = storeWith(PAID, ['ref_1']);
    const answered = serviceWith(
      async (body) => {
        events.push(`sent ${body.merTrackNo}`);
        return { batchNo: 'R1', refundStatus: 'pending' };
      },
      {},
      cradle,
    );
    await answered.service.refundPayment(refundInput(5));
    // The answer on the entry before Medusa's own write of it (which deletes the row when it fails).
    expect(events).toEqual(['record ref_1', 'sent ref_1', 'answer ref_1 pending sending']);

    events.length = 0;
    const refused = serviceWith(
      async () => {
        events.push('sent ref_1');
        throw new GatewayBadRequestError('Gateway refused the request: P0001 too high', { code: 'P0001' });
      },
      {},
      cradle,
    );
    await expect(refused.service.refundPayment(refundInput(5))).rejects.toMatchObject({
      type: 'not_allowed',
    });
    expect(events).toEqual(['record ref_1', 'sent ref_1', 'drop ref_1']);
  });

  it('a refund that cannot be recorded first is not sent', async () => {
    const { cradle } = storeWith(PAID, ['ref_1'], false);
    const { service, create } = serviceWith(
      async () => ({ batchNo: 'R1', refundStatus: 'success' }),
      {},
      cradle,
    );
    await expect(service.refundPayment(refundInput(5))).rejects.toThrow(
      /could not be recorded on its payment before sending; nothing was sent/,
    );
    expect(create).not.toHaveBeenCalled();
  });

  it('attack: a refund sent whose Medusa record was lost blocks every further refund of the payment, naming it; nothing is sent (found by review)', async () => {
    for (const status of ['unknown', 'pending', 'succeeded']) {
      const { cradle, raw } = storeWith({ ...PAID, refunds: [{ ...LOST, status }] }, ['ref_1']);
      const { service, create } = serviceWith(
        async () => ({ batchNo: 'R1', refundStatus: 'success' }),
        {},
        cradle,
      );
      await expect(service.refundPayment(refundInput(5))).rejects.toThrow(
        /refund ref_LOST of 20\.00 USD was sent to the gateway at 2026-01-03T00:00:00\.000Z, but Medusa no longer holds it.*Refund any more in the merchant portal/,
      );
      expect(create).not.toHaveBeenCalled();
      expect(raw).not.toHaveBeenCalled();
    }
    // Held by its row, or failed at the gateway: nothing is lost, the refund goes through.
    for (const [entry, rows] of [
      [LOST, ['ref_LOST', 'ref_1']],
      [{ ...LOST, status: 'failed' }, ['ref_1']],
    ] as const) {
      const { cradle } = storeWith({ ...PAID, refunds: [entry] }, [...rows]);
      const { service, create } = serviceWith(
        async () => ({ batchNo: 'R1', refundStatus: 'success' }),
        {},
        cradle,
      );
      await service.refundPayment(refundInput(5));
      expect(create).toHaveBeenCalledTimes(1);
    }
  });
});
