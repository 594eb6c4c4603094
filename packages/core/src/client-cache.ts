/**
 * One GatewayClient per distinct gateway settings for the whole process: every service, route and
 * channel using the same merchant account shares its keep-alive pool instead of opening its own.
 */
import { GatewayClient } from './client.js';
import { type GatewayConfig, gatewayBaseUrlOf } from './gateway-config.js';

const clients = new Map<string, GatewayClient>();

/**
 * The shared client for these settings. Settings equal in effect share it: a preset environment and the
 * same host given as baseUrl are one target. Shared, so never `close()` it; its idle sockets close
 * themselves after the pool's keep-alive timeout.
 */
export function gatewayClientFor(config: GatewayConfig): GatewayClient {
  const baseUrl = gatewayBaseUrlOf(config);
  const key = JSON.stringify([config.gatewayNo, config.signKey, baseUrl, config.timeoutMs ?? null]);
  let client = clients.get(key);
  if (!client) {
    client = new GatewayClient({
      gatewayNo: config.gatewayNo,
      signKey: config.signKey,
      baseUrl,
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    });
    clients.set(key, client);
  }
  return client;
}
