import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { phpJsonEncode } from '@gatewaykit/core';
import { inject } from 'vitest';
import { signedHeaders } from './signed-callback';
import { api } from './store-api';
import { waitFor } from './wait';

/**
 * The store's log as it is now. The server's output reaches the file through a pipe, a moment after
 * the answers it follows: fine for waiting until a line appears, not for saying one never did.
 */
export const serverLog = (): string => readFileSync(inject('logFile'), 'utf8');

/**
 * The store's log holding every line the server wrote before this call, for checks that something was
 * never said: a signed failure for a made-up orderNo is logged ("for no attempt of this account") and
 * changes nothing, and once its line is in the file so is everything written before it.
 */
export async function serverLogSoFar(): Promise<string> {
  const marker = `logmark-${randomBytes(6).toString('hex')}`;
  const body = phpJsonEncode({
    type: 'transaction.fail',
    data: { orderNo: marker, tradeNo: '1', orderStatus: 'fail', orderAmount: '1.00', orderCurrency: 'USD' },
  });
  const answer = await api('POST', '/hooks/gatewaykit/callback', {
    rawBody: body,
    headers: signedHeaders(body),
  });
  if (answer.status !== 200) throw new Error(`the log marker's callback was answered ${answer.status}`);
  return waitFor(async () => {
    const log = serverLog();
    return log.includes(`callback ${marker}: failed for no attempt of this account`) && log;
  }, 'the log marker');
}
