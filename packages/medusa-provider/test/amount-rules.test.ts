import { describe, expect, it } from 'vitest';
import { cardServiceWith } from './fake-provider';

describe('amounts', () => {
  it('an amount with more precision than the currency is a 400 naming it, not a 500', async () => {
    const { service } = cardServiceWith(async () => ({}));
    await expect(
      service.initiatePayment({ amount: 10.125, currency_code: 'usd', data: { session_id: 'payses_A' } }),
    ).rejects.toMatchObject({ type: 'invalid_data', message: expect.stringContaining('10.125 usd') });
  });
});
