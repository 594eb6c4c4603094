import { authenticate, defineMiddlewares } from '@medusajs/framework/http';
import { addBuyerToSessionData } from './middlewares/add-buyer';
import { validateSessionInput } from './middlewares/validate-session-input';

export default defineMiddlewares({
  routes: [
    // The callback signature covers the exact bytes the gateway sent.
    { matcher: '/hooks/gatewaykit/callback', method: ['POST'], bodyParser: { preserveRawBody: true } },
    {
      matcher: '/store/payment-collections/:id/payment-sessions',
      method: ['POST'],
      // Allow-list first: the buyer the next middleware adds is the only key not from the storefront.
      middlewares: [validateSessionInput, addBuyerToSessionData],
    },
    {
      matcher: '/store/gatewaykit/payment-methods*',
      middlewares: [authenticate('customer', ['session', 'bearer'])],
    },
  ],
});
