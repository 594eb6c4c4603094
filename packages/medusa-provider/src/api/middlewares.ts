import { authenticate, defineMiddlewares } from '@medusajs/framework/http';
import { addBuyerToSessionData } from './middlewares/add-buyer';
import { refuseWhileChargeOpen } from './middlewares/refuse-while-charge-open';
import { validateSessionInput } from './middlewares/validate-session-input';

/** Store routes that change a cart (and make Medusa replace its payment sessions); never `complete`. */
const CART_CHANGES: { matcher: string; method: ('POST' | 'DELETE')[] }[] = [
  { matcher: '/store/carts/:id', method: ['POST'] },
  { matcher: '/store/carts/:id/line-items', method: ['POST'] },
  { matcher: '/store/carts/:id/line-items/:line_id', method: ['POST', 'DELETE'] },
  { matcher: '/store/carts/:id/promotions', method: ['POST', 'DELETE'] },
  { matcher: '/store/carts/:id/shipping-methods', method: ['POST'] },
  { matcher: '/store/carts/:id/customer', method: ['POST'] },
];

export default defineMiddlewares({
  routes: [
    // The callback signature covers the exact bytes the gateway sent.
    { matcher: '/hooks/gatewaykit/callback', method: ['POST'], bodyParser: { preserveRawBody: true } },
    {
      matcher: '/store/payment-collections/:id/payment-sessions',
      method: ['POST'],
      // Allow-list first: the buyer the last middleware adds is the only key not from the storefront.
      middlewares: [refuseWhileChargeOpen('payment_collection'), validateSessionInput, addBuyerToSessionData],
    },
    ...CART_CHANGES.map((route) => ({ ...route, middlewares: [refuseWhileChargeOpen('cart')] })),
    {
      matcher: '/store/gatewaykit/payment-methods*',
      middlewares: [authenticate('customer', ['session', 'bearer'])],
    },
  ],
});
