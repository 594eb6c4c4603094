/**
 * One GatewayClient per distinct gateway settings for the whole process: every service, route and
 * channel using the same merchant account shares its keep-alive pool instead of opening its own.
 */
import { GatewayClient } from './client.js';
import { type GatewayConfig, gatewayBaseUrlsOf } from './gateway-config.js';

const clients = new Map<string, GatewayClient>();

/**
 * The shared client for these settings. Settings equal in effect share it: a preset environment and the
 * same host given as baseUrl are one target (both base URLs, payment and OpenAPI, make the key). Shared, so never `close()` it; its idle sockets close
 * themselves after the pool's keep-alive timeout.
 */
export function gatewayClientFor(config: GatewayConfig): GatewayClient {
  const { payment, openapi } = gatewayBaseUrlsOf(config);
  const key = JSON.stringify([config.gatewayNo, config.signKey, payment, openapi, config.timeoutMs ?? null]);
  let client = clients.get(key);
  if (!client) {
    client = new GatewayClient({
      gatewayNo: config.gatewayNo,
      signKey: config.signKey,
      // The payment base URL: a preset's host given as baseUrl is that preset (gatewayBaseUrlsOf).
      baseUrl: payment,
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    });
    clients.set(key, client);
  }
  return client;
}
