import { describe, expect, it } from 'vitest';
import { readApiHeaders } from '../src/api-headers.js';

describe('readApiHeaders', () => {
  it('reads the API headers in any case, first value of a repeated header, and whether a body follows', () => {
    const headers = readApiHeaders([
      'Gateway-No',
      '12345678',
      'REQUEST-ID',
      'id-1',
      'request-id',
      'id-2',
      'Request-Time',
      '1700000000000',
      'Sign-Info',
      'abc',
      'Content-Type',
      'application/json',
      'Content-Length',
      '2',
    ]);
    expect(headers).toEqual({
      gatewayNo: '12345678',
      requestId: 'id-1',
      requestTime: '1700000000000',
      signInfo: 'abc',
      contentType: 'application/json',
      hasBody: true,
    });
  });

  it('sees a chunked body, and no body without either header', () => {
    expect(readApiHeaders(['Transfer-Encoding', 'chunked']).hasBody).toBe(true);
    expect(readApiHeaders(['Host', 'x', 'Accept', '*/*'])).toMatchObject({
      hasBody: false,
      signInfo: undefined,
    });
  });
});
