import type { StoreGateways } from './setup-store';

/** Demo merchants of the local sandbox (not secrets: test credentials of an emulator). */
export const DEMO_MERCHANTS = {
  main: { gatewayNo: '12345001', signKey: 'demo-sign-key-main-0001' },
  jp: { gatewayNo: '12345002', signKey: 'demo-sign-key-jp-00002' },
};

/** Gateway settings from the environment, or undefined to start the bundled sandbox. */
export function gatewaysFromEnv(env: NodeJS.ProcessEnv = process.env): StoreGateways | undefined {
  if (!env.GATEWAY_BASE_URL) return undefined;
  const baseUrl = env.GATEWAY_BASE_URL;
  return {
    main: {
      gatewayNo: env.GATEWAY_NO ?? DEMO_MERCHANTS.main.gatewayNo,
      signKey: env.GATEWAY_SIGN_KEY ?? DEMO_MERCHANTS.main.signKey,
      baseUrl,
    },
    jp: {
      gatewayNo: env.GATEWAY_JP_NO ?? DEMO_MERCHANTS.jp.gatewayNo,
      signKey: env.GATEWAY_JP_SIGN_KEY ?? DEMO_MERCHANTS.jp.signKey,
      baseUrl: env.GATEWAY_JP_BASE_URL ?? baseUrl,
    },
  };
}
