import type { InboundLogger } from '@gatewaykit/core';
import { Logger } from '@vendure/core';
import { loggerCtx } from '../constants';

/** Core's inbound handlers log through Vendure's Logger under the plugin's context. */
export const inboundLogger: InboundLogger = {
  info: (message) => Logger.info(message, loggerCtx),
  warn: (message) => Logger.warn(message, loggerCtx),
  error: (message) => Logger.error(message, loggerCtx),
};
