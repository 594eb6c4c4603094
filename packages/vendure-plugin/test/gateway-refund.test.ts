import { GatewayApiError, UnknownOutcomeError } from '@gatewaykit/core';
import { Payment, RequestContext } from '@vendure/core';
import { describe, expect, it } from 'vitest';
import { GatewayRefundService } from '../src/service/gateway-refund.service';
import { RefundFlights } from '../src/service/refund-flights';

const ARGS = { gatewayNo: '12345678', signKey: 'test-sign-key', environment: 'test', mode: 'card' };
const TRADE = '2026112400000000000001';

/** The attempt the plugin wrote when it recorded the charge of order 10 in channel 1. */
const ATTEMPT = {
  orderNo: 'ABC123-1',
  orderId: '10',
  channelId: '1',
  paymentMethodCode: 'gatewaykit-card',
  tradeNo: TRADE,
  status: 'succeeded',
  amount: 1940,
  currency: 'USD',
};

type Where = Record<string, unknown>;

/**
 * GatewayRefundService with the gateway, the attempt table and the refund section faked: what is sent,
 * what is returned and what is noted are what the service decides from them.
 */
function service(
  options: {
    refunds?: unknown[];
    batchNo?: string;
    refundStatus?: string;
    sendError?: unknown;
    attempts?: object[];
    /** The order's payments through the method, oldest first; payment() alone unless told. */
    payments?: object[];
    /** Refund intents of the payment no Refund holds (refund-intents.ts). */
    lost?: { merTrackNo: string; answer: string | null }[];
    /** The intent's write fails. */
    recordError?: unknown;
  } = {},
) {
  const sent: Record<string, unknown>[] = [];
  const notes: string[] = [];
  /** Each intent recorded, with how many requests were sent when it was. */
  const recorded: { merTrackNo: string; sentBefore: number }[] = [];
  /** Intents the gateway's own answer ended. */
  const answered: [string, string][] = [];
  const attempts = options.attempts ?? [ATTEMPT];
  const refunds = new GatewayRefundService(
    {
      clientFor: () => ({
        refunds: {
          create: async (request: Record<string, unknown>) => {
            sent.push(request);
            if (options.sendError !== undefined) throw options.sendError;
            return { batchNo: options.batchNo ?? 'B-new', refundStatus: options.refundStatus ?? 'pending' };
          },
        },
      }),
    } as never,
    { entityOptions: { moneyStrategy: { precision: 2 } } } as never,
    {
      addNoteToOrder: async (_ctx: unknown, input: { note: string }) => {
        notes.push(input.note);
      },
    } as never,
    new RefundFlights(),
    {
      forPayment: (_ctx: unknown, _payment: unknown, work: (r: unknown[]) => unknown) =>
        work(options.refunds ?? []),
    } as never,
    {
      getRepository: (_ctx: unknown, entity: unknown) =>
        entity === Payment
          ? { find: async () => options.payments ?? [payment()] }
          : {
              findOne: async ({ where }: { where: Where }) =>
                attempts.find((row) => Object.entries(where).every(([k, v]) => (row as Where)[k] === v)) ??
                null,
            },
    } as never,
    {
      unheld: async () =>
        (options.lost ?? []).map((intent) => ({
          ...intent,
          refundAmount: '5.00',
          currency: 'USD',
          createdAt: new Date('2026-11-28T10:00:00Z'),
        })),
      record: async (_ctx: unknown, intent: { merTrackNo: string }) => {
        if (options.recordError !== undefined) throw options.recordError;
        recorded.push({ merTrackNo: intent.merTrackNo, sentBefore: sent.length });
      },
      answered: async (_ctx: unknown, merTrackNo: string, answer: string) => {
        answered.push([merTrackNo, answer]);
      },
      numbered: async () => {},
    } as never,
  );
  return { refunds, sent, notes, recorded, answered };
}

function ctxOfChannel(id: number): RequestContext {
  return new RequestContext({
    apiType: 'admin',
    channel: { id, defaultLanguageCode: 'en', defaultCurrencyCode: 'USD' } as never,
    isAuthorized: true,
    authorizedAsOwnerOnly: false,
  });
}

const order = (currencyCode = 'USD') => ({ id: 10, code: 'ABC123', currencyCode }) as never;
const payment = (changes: object = {}) =>
  ({
    id: 7,
    amount: 1940,
    method: 'gatewaykit-card',
    transactionId: TRADE,
    state: 'Settled',
    ...changes,
  }) as never;

describe('GatewayRefundService.create', () => {
  it('commits the refund intent before the request leaves; an intent that cannot be written sends nothing', async () => {
    const { refunds, sent, recorded } = service();
    expect(await refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS)).toMatchObject({
      state: 'Pending',
    });
    expect(recorded).toEqual([{ merTrackNo: 'ABC123-P7-R1', sentBefore: 0 }]);
    expect(sent.map((request) => request.merTrackNo)).toEqual(['ABC123-P7-R1']);

    const failing = service({ recordError: new Error('connection refused') });
    const refused = await failing.refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    // The Refund holds the id, so an intent written late blocks nothing and the next refund takes another.
    expect(refused).toMatchObject({
      state: 'Failed',
      metadata: { status: 'refused', merTrackNo: 'ABC123-P7-R1' },
    });
    expect(failing.notes.join('\n')).toContain(
      'the refund could not be recorded before sending (connection refused)',
    );
    expect(failing.sent).toEqual([]);
  });

  it("a refund the gateway's answer says was not made ends its intent at once, so a rollback leaves nothing blocking", async () => {
    const refusedAtGateway = service({ sendError: new GatewayApiError('refused', { code: 'E0001' }) });
    await refusedAtGateway.refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    expect(refusedAtGateway.answered).toEqual([['ABC123-P7-R1', 'refused']]);
    const failedAtGateway = service({ refundStatus: 'fail' });
    await failedAtGateway.refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    expect(failedAtGateway.answered).toEqual([['ABC123-P7-R1', 'failed']]);
    const pending = service();
    await pending.refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    expect(pending.answered).toEqual([]);
  });

  it('attack: a refund sent whose record was lost, not answered yet, blocks every refund of the payment: nothing is sent', async () => {
    const { refunds, sent, notes } = service({ lost: [{ merTrackNo: 'ABC123-P7-R1', answer: null }] });
    expect(await refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS)).toMatchObject({
      state: 'Failed',
    });
    expect(notes.join('\n')).toContain(
      'refund ABC123-P7-R1 (5.00 USD) was sent to the gateway at 2026-11-28T10:00:00.000Z, but its record here was lost',
    );
    expect(sent).toEqual([]);
  });

  it('once the lost refund is answered failed the payment refunds again, under a number not used before', async () => {
    const { refunds, sent } = service({ lost: [{ merTrackNo: 'ABC123-P7-R1', answer: 'failed' }] });
    expect(await refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS)).toMatchObject({
      state: 'Pending',
    });
    expect(sent.map((request) => request.merTrackNo)).toEqual(['ABC123-P7-R2']);
  });

  it('attack: a second payment naming the same trade (a manual payment an administrator added) refunds nothing; the trade refunds through its own payment only', async () => {
    const manual = payment({ id: 8, amount: 2000 });
    const { refunds, sent, notes } = service({ payments: [payment(), manual] });
    const refused = await refunds.create(ctxOfChannel(1), null, 2000, order(), manual, ARGS);
    expect(refused).toMatchObject({ state: 'Failed' });
    expect(notes.join('\n')).toContain(
      `trade ${TRADE} is refunded through payment 7 of this order (Settled), not payment 8`,
    );
    expect(sent).toEqual([]);
    // The trade's own payment still refunds.
    expect(await refunds.create(ctxOfChannel(1), null, 1940, order(), payment(), ARGS)).toMatchObject({
      state: 'Pending',
    });
    expect(sent).toHaveLength(1);
  });

  it('attack: a payment of the trade that is not Settled (declined, cancelled) refunds nothing', async () => {
    const declined = payment({ state: 'Declined' });
    const { refunds, sent } = service({ payments: [declined] });
    expect(await refunds.create(ctxOfChannel(1), null, 100, order(), declined, ARGS)).toMatchObject({
      state: 'Failed',
    });
    expect(sent).toEqual([]);
  });

  it("refunds a charge the plugin recorded for this order and method, in the charge's currency", async () => {
    const { refunds, sent } = service();
    // The order has since moved to yen (a channel with several currencies): the dollars are refunded.
    const result = await refunds.create(ctxOfChannel(1), 'damaged', 1940, order('JPY'), payment(), ARGS);
    expect(result).toMatchObject({
      state: 'Pending',
      transactionId: 'B-new',
      metadata: { currency: 'USD', refundAmount: '19.40', merTrackNo: 'ABC123-P7-R1', status: 'sent' },
    });
    expect(sent).toEqual([
      expect.objectContaining({ tradeNo: TRADE, refundAmount: '19.40', refundType: '1' }),
    ]);
  });

  it('an administrator of another channel the order is in (the default one) refunds it too', async () => {
    const { refunds, sent } = service();
    const result = await refunds.create(ctxOfChannel(2), null, 500, order(), payment(), ARGS);
    expect(result.state).toBe('Pending');
    expect(sent).toHaveLength(1);
  });

  it('sends nothing for a payment whose trade is not a succeeded charge of this order and method', async () => {
    const cases: [string, RequestContext, object, object[]][] = [
      ["another order's trade (of any channel)", ctxOfChannel(1), payment(), [{ ...ATTEMPT, orderId: '11' }]],
      ['through another method', ctxOfChannel(1), payment({ method: 'gatewaykit-hosted' }), [ATTEMPT]],
      ['a charge that failed', ctxOfChannel(1), payment(), [{ ...ATTEMPT, status: 'failed' }]],
      ['a made-up trade', ctxOfChannel(1), payment({ transactionId: 'T-made-up' }), [ATTEMPT]],
    ];
    for (const [why, ctx, paid, attempts] of cases) {
      const { refunds, sent, notes } = service({ attempts });
      const result = await refunds.create(ctx, null, 500, order(), paid as never, ARGS);
      expect(result.state, why).toBe('Failed');
      expect(String(result.metadata?.message), why).toMatch(/is not a payment of this order taken through/);
      expect(sent, why).toEqual([]);
      expect(notes[0], why).toContain('Refund failed, nothing was refunded');
    }
  });

  it('is refused, not recorded twice, when the gateway answers with a refund another Vendure refund holds', async () => {
    const earlier = {
      id: 3,
      state: 'Pending',
      total: 500,
      transactionId: 'B-old',
      metadata: { gatewaykit: 'gateway', batchNo: 'B-old' },
    };
    const { refunds } = service({ refunds: [earlier], batchNo: 'B-old' });
    const result = await refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    expect(result.state).toBe('Failed');
    expect(result.transactionId).toBeUndefined();
    expect(result.metadata).toMatchObject({ status: 'refused' });
    expect(result.metadata?.batchNo).toBeUndefined();
    expect(String(result.metadata?.message)).toContain('duplicate of refund 3');
  });

  it('counts the refunds read in the refund section: what another admin refunded meanwhile is not left', async () => {
    const { refunds, sent } = service({ refunds: [{ id: 3, state: 'Pending', total: 1940 }] });
    const result = await refunds.create(ctxOfChannel(1), null, 1940, order(), payment(), ARGS);
    expect(result.state).toBe('Failed');
    expect(String(result.metadata?.message)).toContain('only 0 of the payment of 1940 is left to refund');
    expect(sent).toEqual([]);
  });

  it("reads the answer's status as core reads refund records: made at once, failed at once, or pending", async () => {
    const made = await service({ refundStatus: ' Success ' }).refunds.create(
      ctxOfChannel(1),
      null,
      500,
      order(),
      payment(),
      ARGS,
    );
    expect(made).toMatchObject({
      state: 'Settled',
      transactionId: 'B-new',
      metadata: { status: 'succeeded' },
    });
    const failed = service({ refundStatus: 'FAILED' });
    const refused = await failed.refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
    expect(refused).toMatchObject({ state: 'Failed', metadata: { status: 'refused', batchNo: 'B-new' } });
    expect(String(refused.metadata?.message)).toContain(
      'answered refund ABC123-P7-R1 as failed (batchNo B-new)',
    );
    expect(failed.notes[0]).toContain('Refund failed, nothing was refunded');
  });

  it('attack: an error that is not a gateway refusal may have refunded: Pending and unknown, never Failed', async () => {
    for (const sendError of [
      new TypeError('a bug after sending'),
      new UnknownOutcomeError('lost', 'createRefund'),
    ]) {
      const { refunds, notes } = service({ sendError });
      const result = await refunds.create(ctxOfChannel(1), null, 500, order(), payment(), ARGS);
      expect(result).toMatchObject({ state: 'Pending', metadata: { status: 'unknown' } });
      expect(notes[0]).toContain('the refund may have been made');
    }
    const refusedAtGateway = service({ sendError: new GatewayApiError('refused', { code: 'E0001' }) });
    const refused = await refusedAtGateway.refunds.create(
      ctxOfChannel(1),
      null,
      500,
      order(),
      payment(),
      ARGS,
    );
    expect(refused).toMatchObject({ state: 'Failed', metadata: { status: 'refused' } });
  });
});
