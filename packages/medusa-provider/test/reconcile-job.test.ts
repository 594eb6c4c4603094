import { describe, expect, it, vi } from 'vitest';
import job, {
  config,
  RECONCILE_INTERVAL_LOCK,
  reconcileIntervalSeconds,
} from '../src/jobs/reconcile-gateway-payments';
import { awaitsGatewayOutcome } from '../src/lib/reconcile-run';

// vi.mock is hoisted above the imports: the job runs this instead of a real reconciliation.
const run = vi.hoisted(() => vi.fn(async () => ({ attempts: [], refunds: [] })));
vi.mock('../src/lib/reconcile-run', async (original) => ({
  ...(await original<object>()),
  runReconciliation: run,
}));

/** A container whose locking module keeps keys with expiry, shared like a Redis provider would be. */
function instances(count: number) {
  const held = new Map<string, { owner: string; until: number }>();
  const locking = {
    acquire: vi.fn(async (key: string, args: { ownerId: string; expire: number }) => {
      const lock = held.get(key);
      if (lock && lock.owner !== args.ownerId && lock.until > Date.now()) {
        throw new Error(`Failed to acquire lock for key "${key}"`);
      }
      held.set(key, { owner: args.ownerId, until: Date.now() + args.expire * 1000 });
    }),
  };
  const logger = { info: vi.fn(), debug: vi.fn(), warn: vi.fn(), error: vi.fn() };
  return {
    held,
    containers: Array.from({ length: count }, () => ({
      resolve: (name: string) => (name === 'logger' ? logger : locking),
    })),
  };
}

describe('reconciliation job', () => {
  it('runs once per interval when several instances fire at the same time', async () => {
    run.mockClear();
    const { containers, held } = instances(3);
    await Promise.all(containers.map((container) => job(container as never)));
    expect(run).toHaveBeenCalledTimes(1);
    expect(held.get(RECONCILE_INTERVAL_LOCK)!.until - Date.now()).toBeLessThan(300_000);

    // The next interval (the lock expired): one run again.
    held.get(RECONCILE_INTERVAL_LOCK)!.until = Date.now() - 1;
    await Promise.all(containers.map((container) => job(container as never)));
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('is a Medusa scheduled job every five minutes', () => {
    expect(config).toEqual({ name: 'gatewaykit-reconcile-payments', schedule: '*/5 * * * *' });
  });
});

describe('awaitsGatewayOutcome', () => {
  const sent = { orderNo: 'payses_1', attemptedAt: '2026-01-01T00:00:00Z', amount: '60.00', currency: 'USD' };
  const outcome = (status: string) =>
    ({ orderNo: 'payses_1', status, reason: 'r', redirectUrl: 'u' }) as never;

  it("is a charge sent without an answer, answered unknown or pending, or a shopper on the gateway's page", () => {
    expect(awaitsGatewayOutcome(sent)).toBe(true);
    for (const status of ['unknown', 'pending', 'redirect']) {
      expect(awaitsGatewayOutcome({ ...sent, outcome: outcome(status) })).toBe(true);
    }
  });

  it('is not a charge never sent, or settled', () => {
    expect(awaitsGatewayOutcome({ ...sent, attemptedAt: undefined })).toBe(false);
    for (const status of ['succeeded', 'failed']) {
      expect(awaitsGatewayOutcome({ ...sent, outcome: outcome(status) })).toBe(false);
    }
  });
});

describe('reconciliation interval', () => {
  it('is five minutes unless GATEWAYKIT_RECONCILE_INTERVAL_SECONDS says otherwise', () => {
    expect(reconcileIntervalSeconds({})).toBe(300);
    expect(reconcileIntervalSeconds({ GATEWAYKIT_RECONCILE_INTERVAL_SECONDS: '20' })).toBe(20);
    expect(() => reconcileIntervalSeconds({ GATEWAYKIT_RECONCILE_INTERVAL_SECONDS: '0.5' })).toThrow(
      /whole number/,
    );
  });
});
