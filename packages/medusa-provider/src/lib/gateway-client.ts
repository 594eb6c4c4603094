import { GatewayClient } from '@gatewaykit/core';
import type { GatewaykitOptions } from './options';

/** One gateway client per options object; the routes and the three provider services share it. */
const clients = new WeakMap<GatewaykitOptions, GatewayClient>();

export function gatewayClientFor(options: GatewaykitOptions): GatewayClient {
  let client = clients.get(options);
  if (!client) {
    const common = {
      gatewayNo: options.gatewayNo,
      signKey: options.signKey,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    };
    client = options.baseUrl
      ? new GatewayClient({ ...common, baseUrl: options.baseUrl })
      : new GatewayClient({ ...common, environment: options.environment ?? 'test' });
    clients.set(options, client);
  }
  return client;
}
