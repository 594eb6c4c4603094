import { authenticate, defineMiddlewares } from '@medusajs/framework/http';
import { addBuyerToSessionData } from './middlewares/add-buyer';
import { guardCartCompletion } from './middlewares/guard-cart-completion';
import { holdCartLock } from './middlewares/hold-cart-lock';
import { jsonRequestsOnly } from './middlewares/json-requests-only';
import { onPaymentSessionCreation } from './middlewares/payment-session-route';
import { readRawCallbackBody } from './middlewares/raw-callback-body';
import { redactingErrorHandler } from './middlewares/redacting-error-handler';
import { refuseWhileChargeOpen } from './middlewares/refuse-while-charge-open';
import { syncCollectionAmount } from './middlewares/sync-collection-amount';
import { validateSessionInput } from './middlewares/validate-session-input';

/** Who asks, for the customer rule (lib/session-chooser.ts): the logged-in customer, or a guest. */
const shopperIfLoggedIn = authenticate('customer', ['session', 'bearer'], { allowUnauthenticated: true });

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
  // Card numbers never come back in an error answer or its log line, whoever's route it is.
  errorHandler: redactingErrorHandler(),
  routes: [
    // The callback signature covers the exact bytes the gateway sent: read them, never parse them.
    {
      matcher: '/hooks/gatewaykit/callback',
      method: ['POST'],
      bodyParser: false,
      middlewares: [readRawCallbackBody],
    },
    {
      // Wildcard: runs before Medusa's own validator of the route (see payment-session-route.ts).
      matcher: '/store/payment-collections/*',
      method: ['POST'],
      middlewares: [
        // Allow-list first: the buyer the last step adds is the only key not from the storefront.
        onPaymentSessionCreation(
          // Who asks: a new session replaces the cart's, so the customer rule applies here too.
          shopperIfLoggedIn,
          holdCartLock,
          refuseWhileChargeOpen('payment_collection'),
          validateSessionInput,
          addBuyerToSessionData,
          // The session asks for the cart's total, even after the taxes route moved it.
          syncCollectionAmount,
        ),
      ],
    },
    ...CART_CHANGES.map((route) => ({
      ...route,
      middlewares: [shopperIfLoggedIn, refuseWhileChargeOpen('cart')],
    })),
    // Changes the cart's total but keeps its payment sessions: a gateway page would still ask for the
    // old total (docs/SECURITY.md §5).
    {
      matcher: '/store/carts/:id/taxes',
      method: ['POST'],
      middlewares: [shopperIfLoggedIn, refuseWhileChargeOpen('cart', { pageToo: true })],
    },
    // A payment given back before an order existed never becomes one (docs/SECURITY.md §6), and a
    // customer's chosen card is charged only when that customer completes (§2).
    {
      matcher: '/store/carts/:id/complete',
      method: ['POST'],
      middlewares: [shopperIfLoggedIn, guardCartCompletion],
    },
    {
      matcher: '/store/gatewaykit/payment-methods*',
      middlewares: [authenticate('customer', ['session', 'bearer'])],
    },
    // Admin routes are authenticated by Medusa already; said here too, as the payment-methods route does.
    // They take JSON only (no cross-site form posts), and with Medusa's RBAC on, the right to change
    // payments: they fail, close and release charges.
    {
      matcher: '/admin/gatewaykit/*',
      middlewares: [authenticate('user', ['session', 'bearer', 'api-key']), jsonRequestsOnly],
      policies: [{ resource: 'payment', operation: 'update' }],
    },
  ],
});
