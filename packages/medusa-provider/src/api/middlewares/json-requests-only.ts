import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';

/**
 * The plugin's admin routes take JSON only (docs/SECURITY.md §9). Medusa also parses urlencoded and
 * text bodies, which a plain HTML form on any site can post with the admin's session cookie and
 * without a CORS preflight (a sibling subdomain passes SameSite=Lax); a JSON request needs the
 * preflight, which Medusa's admin CORS answers only for the admin's own origins.
 */
export function jsonRequestsOnly(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction): void {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (req.method !== 'POST' || type === 'application/json') {
    next();
    return;
  }
  next(
    new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'content-type: must be application/json (the gatewaykit admin routes take JSON only)',
    ),
  );
}
