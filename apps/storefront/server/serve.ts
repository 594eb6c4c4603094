import { fileURLToPath } from 'node:url';
import { type PreviewServer, preview } from 'vite';
import type { StorefrontConfig } from '../src/config';
import { onlyStoreApi, STORE_API_PATHS } from './store-api-paths';

export const STOREFRONT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface StorefrontOptions {
  port: number;
  host?: string;
  /** Base URLs of the two stores' backends; the storefront proxies /medusa-api and /vendure-api to them. */
  medusaUrl: string;
  vendureUrl: string;
  publishableKey: string;
  medusaRawCards: boolean;
  vendureRawCards: boolean;
  localMethods?: string[];
}

export interface RunningStorefront {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the built storefront (vite preview) with /config.json and same-origin proxies to both stores,
 * so the browser needs no CORS setup and the stores need not know the storefront's origin.
 */
export async function startStorefront(options: StorefrontOptions): Promise<RunningStorefront> {
  const config: StorefrontConfig = {
    medusa: {
      apiBase: '/medusa-api',
      publishableKey: options.publishableKey,
      regionName: 'Gatewaykit Demo',
      rawCards: options.medusaRawCards,
      localMethods: options.localMethods ?? ['klarna', 'ideal', 'Alipay'],
    },
    vendure: {
      apiBase: '/vendure-api',
      rawCards: options.vendureRawCards,
      cardMethodCode: 'gatewaykit-card',
    },
  };
  const proxy = (target: string, prefix: string) => ({
    target,
    changeOrigin: true,
    rewrite: (path: string) => path.slice(prefix.length) || '/',
  });
  const server: PreviewServer = await preview({
    root: STOREFRONT_ROOT,
    configFile: false,
    logLevel: 'warn',
    build: { outDir: 'dist' },
    preview: {
      port: options.port,
      host: options.host ?? '127.0.0.1',
      strictPort: true,
      proxy: {
        '/medusa-api': proxy(options.medusaUrl, '/medusa-api'),
        '/vendure-api': proxy(options.vendureUrl, '/vendure-api'),
      },
    },
    plugins: [
      {
        name: 'gatewaykit-storefront-config',
        configurePreviewServer(preview) {
          // Runs before the proxies: only the shopper APIs are forwarded.
          preview.middlewares.use(onlyStoreApi(STORE_API_PATHS));
          preview.middlewares.use('/config.json', (_request, response) => {
            response.setHeader('content-type', 'application/json');
            response.setHeader('cache-control', 'no-store');
            response.end(JSON.stringify(config));
          });
        },
      },
    ],
  });
  const address = server.httpServer.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () => server.close(),
  };
}
