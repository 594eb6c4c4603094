import type { MedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { CardElementUnavailableError, issueCardElement } from '../../../../lib/card-element';

/**
 * `POST /store/gatewaykit/card-element` `{ cart_id, provider_id }` → `{ session_token, script_url,
 * expires_at }`: what the storefront's card form needs (docs/card-element.md). The token is minted with
 * the merchant account of the card provider that will charge the cart; the sign key never leaves the
 * server. Like every store route it needs the publishable key.
 */
export async function POST(req: MedusaRequest, res: MedusaResponse): Promise<void> {
  try {
    res.json(await issueCardElement(req.scope, req.body));
  } catch (error) {
    if (!(error instanceof CardElementUnavailableError)) throw error;
    req.scope.resolve(ContainerRegistrationKeys.LOGGER).warn(`gatewaykit card element: ${error.message}`);
    res.status(502).json({
      type: 'gateway_unavailable',
      message: 'The payment gateway did not issue a card form right now; nothing was charged. Try again.',
    });
  }
}
