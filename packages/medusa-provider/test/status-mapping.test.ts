import { UnknownOutcomeError } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { sessionStatusFor } from '../src/lib/session-status';
import { cardServiceWith, cardSession } from './fake-provider';

const result = (fields: Record<string, string>) => async (body: Record<string, unknown>) => ({
  orderNo: body.orderNo,
  tradeNo: 'T1',
  orderAmount: body.orderAmount,
  orderCurrency: body.orderCurrency,
  maskCardNo: '424242***4242',
  ...fields,
});

describe('authorizePayment maps the gateway outcome to a Medusa session status (docs/payment-states.md#platform-mapping)', () => {
  it('success -> captured', async () => {
    const { service, confirm } = cardServiceWith(result({ orderStatus: 'success', orderInfo: 'Approved' }));
    const { status, data } = await service.authorizePayment({ data: cardSession() });
    expect(status).toBe('captured');
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]![0]).toMatchObject({
      orderNo: 'payses_01TEST',
      orderAmount: '60.00',
      orderCurrency: 'USD',
    });
    expect(data).toMatchObject({ outcome: { status: 'succeeded', tradeNo: 'T1' } });
  });

  it('pending with redirectUrl -> requires_more with data.redirectUrl', async () => {
    const { service } = cardServiceWith(
      result({ orderStatus: 'pending', redirectUrl: 'http://gateway.test/3ds/T1' }),
    );
    const { status, data } = await service.authorizePayment({ data: cardSession() });
    expect(status).toBe('requires_more');
    expect(data?.redirectUrl).toBe('http://gateway.test/3ds/T1');
  });

  it('pending without redirect -> pending_authorization', async () => {
    const { service } = cardServiceWith(result({ orderStatus: 'pending' }));
    expect((await service.authorizePayment({ data: cardSession() })).status).toBe('pending_authorization');
  });

  it("fail -> error with the gateway's orderInfo", async () => {
    const { service } = cardServiceWith(result({ orderStatus: 'fail', orderInfo: 'Card declined' }));
    const { status, data } = await service.authorizePayment({ data: cardSession() });
    expect(status).toBe('error');
    expect(data?.error).toBe('Card declined');
  });

  it('unknown outcome -> pending, and a second authorize never charges again', async () => {
    const { service, confirm } = cardServiceWith(async () => {
      throw new UnknownOutcomeError('socket reset after the body was written', 'confirmCharge');
    });
    const first = await service.authorizePayment({ data: cardSession() });
    expect(first.status).toBe('pending');
    const second = await service.authorizePayment({ data: first.data });
    expect(second.status).toBe('pending');
    expect(confirm).toHaveBeenCalledTimes(1);
  });

  it('a stored success is returned without calling the gateway', async () => {
    const { service, confirm } = cardServiceWith(result({ orderStatus: 'fail' }));
    const stored = {
      ...cardSession(),
      outcome: { status: 'succeeded', orderNo: 'payses_01TEST', tradeNo: 'T9' },
    };
    expect((await service.authorizePayment({ data: stored })).status).toBe('captured');
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a session another instance already marked sent is never charged again (the mark is in the database)', async () => {
    // The payment module's session rows, shared by two provider instances (two servers, one database).
    const rows = new Map<string, Record<string, unknown>>([['payses_SAME', cardSession('payses_SAME')]]);
    const sessions = {
      retrieve: async (id: string) => ({ data: rows.get(id) ?? null, payment_collection_id: 'pay_col_1' }),
      list: async () =>
        [...rows].map(([id, data]) => ({ id, provider_id: 'pp_gatewaykit_gatewaykit', data })),
      update: async ({ id, data }: { id: string; data: Record<string, unknown> }) => {
        rows.set(id, data);
      },
    };
    const first = cardServiceWith(result({ orderStatus: 'success' }), { paymentSessionService: sessions });
    const second = cardServiceWith(result({ orderStatus: 'success' }), { paymentSessionService: sessions });
    expect((await first.service.authorizePayment({ data: cardSession('payses_SAME') })).status).toBe(
      'captured',
    );
    // The second instance read the session before the first marked it: its copy says "not sent".
    const late = await second.service.authorizePayment({ data: cardSession('payses_SAME') });
    expect(late.status).toBe('pending');
    expect(late.data).toMatchObject({ attemptedAt: expect.any(String) });
    expect(first.confirm).toHaveBeenCalledTimes(1);
    expect(second.confirm).not.toHaveBeenCalled();
  });
});

describe('sessionStatusFor (docs/payment-states.md)', () => {
  it('maps every gateway outcome to the Medusa session status of the table', () => {
    const outcomes = [
      { status: 'unknown', orderNo: 'o', reason: 'timeout' },
      { status: 'redirect', orderNo: 'o', redirectUrl: 'https://gw/3ds' },
      { status: 'pending', orderNo: 'o' },
      { status: 'failed', orderNo: 'o', reason: 'declined' },
      { status: 'succeeded', orderNo: 'o', tradeNo: 'T1' },
    ] as const;
    expect(outcomes.map(sessionStatusFor)).toEqual([
      'pending',
      'requires_more',
      'pending_authorization',
      'error',
      'captured',
    ]);
    expect(sessionStatusFor(undefined)).toBe('pending');
  });
});

describe('authorizePayment of money given back at the gateway (found by review)', () => {
  it('attack: a stored success refunded in the merchant portal or charged back is never authorized: not_allowed, nothing sent', async () => {
    const paid = {
      ...cardSession(),
      attemptedAt: '2026-01-02T03:00:00.000Z',
      outcome: {
        orderNo: 'payses_01TEST',
        status: 'succeeded',
        tradeNo: 'T1',
        amount: '60.00',
        currency: 'USD',
      },
    };
    for (const [returned, message] of [
      [{ refundedAtGateway: ['B1'] }, /was refunded at the gateway before an order was placed/],
      [
        { chargebacks: [{ batchNo: 'C1', receivedAt: 'x' }] },
        /was charged back by the cardholder's bank before an order/,
      ],
    ] as const) {
      const { service, confirm } = cardServiceWith(result({ orderStatus: 'success' }));
      await expect(service.authorizePayment({ data: { ...paid, ...returned } })).rejects.toMatchObject({
        type: 'not_allowed',
        message: expect.stringMatching(message),
      });
      expect(confirm).not.toHaveBeenCalled();
    }
    // The same success, nothing given back: captured as before.
    const { service } = cardServiceWith(result({ orderStatus: 'success' }));
    expect((await service.authorizePayment({ data: paid })).status).toBe('captured');
  });
});
