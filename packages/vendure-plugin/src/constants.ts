/** Logger context for every message the plugin writes. */
export const loggerCtx = 'GatewaykitPlugin';
/** Nest injection token for the options passed to GatewaykitPlugin.init(). */
export const GATEWAYKIT_PLUGIN_OPTIONS = Symbol('GATEWAYKIT_PLUGIN_OPTIONS');
/** PaymentMethodHandler code; PaymentMethods configured with it belong to this plugin. */
export const HANDLER_CODE = 'gatewaykit';
/** Route prefix of the callback and return controllers (under the Vendure server root). */
export const ROUTE_PREFIX = 'payments/gatewaykit';
