import { authenticate, defineMiddlewares } from '@medusajs/framework/http';
import { addBuyerToSessionData } from './middlewares/add-buyer';

export default defineMiddlewares({
  routes: [
    // The callback signature covers the exact bytes the gateway sent.
    { matcher: '/hooks/gatewaykit/callback', method: ['POST'], bodyParser: { preserveRawBody: true } },
    {
      matcher: '/store/payment-collections/:id/payment-sessions',
      method: ['POST'],
      middlewares: [addBuyerToSessionData],
    },
    {
      matcher: '/store/gatewaykit/payment-methods*',
      middlewares: [authenticate('customer', ['session', 'bearer'])],
    },
  ],
});
