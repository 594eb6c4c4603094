import { isIP } from 'node:net';

/** What the gateway is told when the shopper's address is not known (the API requires one). */
const UNKNOWN_CUSTOMER_IP = '127.0.0.1';

/**
 * The shopper's IP address for a charge's `customerIp`, from the platform's idea of the request's
 * address (Express's `req.ip`, which follows X-Forwarded-For as far as the app trusts proxies): an IPv4
 * address written plainly, or an IPv6 one; anything else, which only a forged header could bring, is
 * not sent (docs/SECURITY.md, §9 "The shopper's IP address").
 */
export function customerIpOf(requestIp: string | undefined): string {
  const ip = (requestIp ?? '').trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return ip.length <= 45 && isIP(ip) !== 0 ? ip : UNKNOWN_CUSTOMER_IP;
}
