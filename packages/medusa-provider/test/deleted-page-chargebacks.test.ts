import type { CallbackEvent, ChargebackEvent } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../src/lib/charge-claim';
import { recordChargebackOnDeletedPage } from '../src/lib/deleted-page-chargebacks';
import type { GatewayChargeback } from '../src/lib/gateway-records';
import { SessionAttempts } from '../src/lib/session-attempts';

const OWN_PROVIDERS = ['pp_gatewaykit_gatewaykit', 'pp_gatewaykit-hosted_gatewaykit'];
const OTHER_PROVIDERS = ['pp_gatewaykit_second', 'pp_gatewaykit-hosted_second'];

const chargeback: ChargebackEvent = {
  kind: 'chargeback',
  batchNo: 'CB1',
  tradeNo: 'T1',
  orderNo: 'ps_1',
  amount: '10.00',
  currency: 'USD',
  reason: 'D4837-No Cardholder Authorization',
  replyDeadline: '2026-12-05 10:00:00',
};

/** The same chargeback as its `chargeback.success` notice carries it. */
const notice: CallbackEvent = {
  type: 'chargeback.success',
  data: {
    batchNo: 'CB1',
    tradeNo: 'T1',
    orderNo: 'ps_1',
    amount: '10.00',
    currency: 'USD',
    reason: 'D4837-No Cardholder Authorization',
    chargebackInfo: { replyDeadline: '2026-12-05 10:00:00' },
  },
};

/**
 * The page of session ps_1, kept by the hosted provider of the first account, behind Medusa's modules:
 * the table answers as Postgres would for the statements DeletedPages sends (a jsonb column read back as
 * a copy), and no payment session exists. `beforeLockedWork` runs when the page lock is taken.
 */
function storeWithKeptPage(options: { beforeLockedWork?: () => void } = {}) {
  const steps: string[] = [];
  const locks: string[] = [];
  const logged = { info: [] as string[], warn: [] as string[], error: [] as string[] };
  const page = { orderNo: 'ps_1', providerId: 'pp_gatewaykit-hosted_gatewaykit', chargebacks: '[]' };
  const pageOf = (bindings: readonly unknown[], orderNoAt: number) =>
    bindings[orderNoAt] === page.orderNo && bindings.slice(orderNoAt + 1).includes(page.providerId);
  const db = {
    async raw(sql: string, bindings: readonly unknown[]) {
      if (/^SELECT d\.chargebacks FROM gatewaykit_deleted_page/.test(sql)) {
        steps.push('read');
        return { rows: pageOf(bindings, 0) ? [{ chargebacks: JSON.parse(page.chargebacks) }] : [] };
      }
      if (/^UPDATE gatewaykit_deleted_page SET chargebacks = CAST\(\? AS jsonb\)/.test(sql)) {
        steps.push('write');
        if (pageOf(bindings, 1)) page.chargebacks = String(bindings[0]);
        return { rows: [] };
      }
      throw new Error(`unexpected statement ${sql}`);
    },
    transaction: async () => {
      throw new Error('not used');
    },
  } as SqlDatabase;
  const scope = {
    resolve(key: string) {
      if (key === ContainerRegistrationKeys.PG_CONNECTION) return db;
      if (key === Modules.LOCKING)
        return {
          execute: async (lockKey: string, work: () => Promise<unknown>) => {
            locks.push(lockKey);
            options.beforeLockedWork?.();
            return work();
          },
        };
      if (key === Modules.PAYMENT) return { listPaymentSessions: async () => [] };
      if (key === Modules.NOTIFICATION) return { createNotifications: async () => [] };
      if (key === ContainerRegistrationKeys.LOGGER)
        return {
          info: (line: string) => logged.info.push(line),
          warn: (line: string) => logged.warn.push(line),
          error: (line: string) => {
            steps.push('alert');
            logged.error.push(line);
          },
        };
      throw new Error(`unexpected ${key}`);
    },
  } as unknown as MedusaContainer;
  const storeOf = (providerIds: readonly string[]) =>
    new SessionAttempts(scope, { id: 'gatewaykit', providerIds } as never);
  const kept = () => JSON.parse(page.chargebacks) as GatewayChargeback[];
  return { scope, page, steps, locks, logged, storeOf, kept };
}

describe('chargebacks of a payment made on a page whose session was deleted', () => {
  it('are alerted before they are written: an alert that throws leaves the page without it, and the next delivery alerts again, once', async () => {
    const { scope, steps, locks, kept } = storeWithKeptPage();
    const refused = recordChargebackOnDeletedPage(scope, OWN_PROVIDERS, 'ps_1', chargeback, async () => {
      steps.push('alert');
      throw new Error('the process died here');
    });
    await expect(refused).rejects.toThrow('the process died here');
    expect(steps).toEqual(['read', 'read', 'alert']);
    expect(kept()).toEqual([]);

    const alerted: string[] = [];
    const added = await recordChargebackOnDeletedPage(
      scope,
      OWN_PROVIDERS,
      'ps_1',
      chargeback,
      async (entry) => {
        steps.push('alert');
        alerted.push(`${entry.batchNo} ${entry.amount} ${entry.currency}`);
      },
    );
    expect(added).toBe('added');
    expect(alerted).toEqual(['CB1 10.00 USD']);
    expect(steps.slice(3)).toEqual(['read', 'read', 'alert', 'write']);
    // Decided under the page lock, the key the run and the callback take for PAID BUT NOT APPLIED.
    expect(locks).toEqual(['gatewaykit:deleted-page:ps_1', 'gatewaykit:deleted-page:ps_1']);
    expect(kept()).toEqual([
      expect.objectContaining({
        batchNo: 'CB1',
        tradeNo: 'T1',
        amount: '10.00',
        replyDeadline: '2026-12-05 10:00:00',
      }),
    ]);
  });

  it('a chargeback already kept is not alerted again: a repeated notice (a plain read), and one another instance kept while this one waited for the lock', async () => {
    const first = storeWithKeptPage();
    const alert = async () => {
      first.steps.push('alert');
    };
    expect(await recordChargebackOnDeletedPage(first.scope, OWN_PROVIDERS, 'ps_1', chargeback, alert)).toBe(
      'added',
    );
    const locksBefore = first.locks.length;
    // A later delivery, or the run listing it again: found kept before any lock, nothing said or written.
    expect(await recordChargebackOnDeletedPage(first.scope, OWN_PROVIDERS, 'ps_1', chargeback, alert)).toBe(
      'known',
    );
    expect(first.locks).toHaveLength(locksBefore);
    expect(first.steps.filter((step) => step === 'alert' || step === 'write')).toEqual(['alert', 'write']);
    expect(first.kept()).toHaveLength(1);

    // The run and the notice at once: the notice's instance kept it while the run waited for the lock.
    const raced = storeWithKeptPage({
      beforeLockedWork: () => {
        raced.page.chargebacks = JSON.stringify([{ ...chargeback, kind: undefined, receivedAt: 'earlier' }]);
      },
    });
    const store = raced.storeOf(OWN_PROVIDERS);
    expect(await store.recordChargeback('ps_1', chargeback)).toBe('known');
    expect(raced.steps).toEqual(['read', 'read']);
    expect(raced.logged.error).toEqual([]);
    expect(raced.kept()).toEqual([expect.objectContaining({ batchNo: 'CB1', receivedAt: 'earlier' })]);
  });

  it('a notice with no session reaches the kept page: CHARGEBACK ON UNAPPLIED PAYMENT once, saying not to refund it in the portal; a repeated notice adds nothing', async () => {
    const { steps, logged, storeOf, kept } = storeWithKeptPage();
    const store = storeOf(OWN_PROVIDERS);
    await store.notice(notice, undefined);
    expect(logged.error).toHaveLength(1);
    const [alert] = logged.error;
    expect(alert).toMatch(
      /CHARGEBACK ON UNAPPLIED PAYMENT: Chargeback CB1 of 10\.00 USD on tradeNo T1 \(orderNo ps_1\): D4837-No Cardholder Authorization\./,
    );
    expect(alert).toMatch(/never applied to an order: its payment session was deleted \(the cart changed\)/);
    expect(alert).toMatch(/do NOT also refund it in the gateway's merchant portal/);
    expect(alert).toMatch(/by 2026-12-05 10:00:00/);
    expect(steps.slice(-2)).toEqual(['alert', 'write']);
    expect(logged.warn).toEqual([]);
    expect(kept()).toEqual([expect.objectContaining({ batchNo: 'CB1', receivedAt: expect.any(String) })]);

    await store.notice(notice, undefined);
    expect(logged.error).toHaveLength(1);
    expect(logged.warn).toEqual([]);
    // The run, finding it kept, has nothing to report.
    expect(await store.recordChargeback('ps_1', chargeback)).toBe('known');
    expect(kept()).toHaveLength(1);
  });

  it('the run tells a chargeback it kept on a page apart from one on a payment', async () => {
    const { storeOf } = storeWithKeptPage();
    expect(await storeOf(OWN_PROVIDERS).recordChargeback('ps_1', chargeback)).toBe('added-on-deleted-page');
  });

  it("attack: another account's provider ids do not reach the page: nothing alerted or written, the notice only warned about", async () => {
    const { steps, logged, storeOf, kept } = storeWithKeptPage();
    const other = storeOf(OTHER_PROVIDERS);
    await other.notice(notice, undefined);
    expect(steps).toEqual(['read']);
    expect(logged.error).toEqual([]);
    expect(logged.warn).toEqual([
      expect.stringMatching(
        /chargeback\.success for orderNo ps_1 \(batchNo CB1\): no payment session .* nor a page it kept/,
      ),
    ]);
    expect(await other.recordChargeback('ps_1', chargeback)).toBe('not-found');
    expect(kept()).toEqual([]);
  });

  it('a refund notice with no session is still only warned about (refunds are not kept on pages)', async () => {
    const { steps, logged, storeOf } = storeWithKeptPage();
    await storeOf(OWN_PROVIDERS).notice(
      { type: 'refund.success', data: { orderNo: 'ps_1', batchNo: 'R1', merTrackNo: 'ref_1' } },
      undefined,
    );
    expect(steps).toEqual([]);
    expect(logged.warn).toEqual([expect.stringMatching(/refund\.success for orderNo ps_1.*nothing changed/)]);
  });
});
