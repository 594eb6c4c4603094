import { describe, expect, it } from 'vitest';
import { customerIpOf } from '../src/customer-ip.js';

describe('customerIpOf', () => {
  it("takes the request's address: IPv4 without the IPv4-mapped IPv6 prefix, IPv6 as it is", () => {
    expect(customerIpOf('198.51.100.4')).toBe('198.51.100.4');
    expect(customerIpOf('::ffff:198.51.100.4')).toBe('198.51.100.4');
    expect(customerIpOf('2001:db8::1')).toBe('2001:db8::1');
  });

  it('falls back to loopback when the address is not known', () => {
    expect(customerIpOf(undefined)).toBe('127.0.0.1');
    expect(customerIpOf('')).toBe('127.0.0.1');
  });

  it('attack: a forged X-Forwarded-For that is no address (a list, text, markup, a long value) is never sent', () => {
    for (const forged of [
      '8.8.8.8, 10.0.0.1',
      'unknown',
      '<script>alert(1)</script>',
      '4242424242424242',
      '1.2.3.4\r\nX-Injected: 1',
      `2001:db8::${'1:'.repeat(40)}1`,
      '999.1.1.1',
    ]) {
      expect(customerIpOf(forged), forged).toBe('127.0.0.1');
    }
  });
});
