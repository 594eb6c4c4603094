import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from '@medusajs/framework/http';

type Middleware = (req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) => unknown;

const PAYMENT_SESSIONS = /^\/store\/payment-collections\/([^/]+)\/payment-sessions\/?$/i;

/**
 * Medusa's own body validator for `POST /store/payment-collections/:id/payment-sessions` runs before a
 * plugin's middleware on the same matcher, and its messages (logged and answered) repeat a refused
 * value: `data` sent as a card number would end up in the log. Registered on the wildcard matcher
 * `/store/payment-collections/*`, which Medusa orders before `:id` routes, these run first.
 */
export function onPaymentSessionCreation(...chain: Middleware[]): Middleware {
  return (req, res, next) => {
    if (!PAYMENT_SESSIONS.test(req.path)) return next();
    const run = (index: number) => (error?: unknown) => {
      if (error !== undefined || index === chain.length) return next(error);
      void chain[index]!(req, res, run(index + 1));
    };
    run(0)();
  };
}

/** The payment collection id of the payment-session route, however the middleware was matched. */
export function paymentCollectionIdOf(req: MedusaRequest): string {
  return req.params.id ?? decodeURIComponent(PAYMENT_SESSIONS.exec(req.path)?.[1] ?? '');
}
