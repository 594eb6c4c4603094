import { describe, expect, it } from 'vitest';
import { GatewaykitPlugin } from '../src/plugin';

const BASE = { vendureHost: 'https://shop.example', storefrontOrderUrl: 'https://shop.example/order/{code}' };

/** A reconcile setting the runs cannot use stops the start, naming it (not every run, later). */
describe('GatewaykitPlugin.init: the reconcile settings', () => {
  it('attack: a wait or age that is not a number of milliseconds 0 or more, or a batch under one, is refused naming it', () => {
    const bad: [string, Record<string, unknown>][] = [
      ['reconcile.afterMs', { afterMs: Number.NaN }],
      ['reconcile.afterMs', { afterMs: -1 }],
      ['reconcile.noRecordAfterMs', { noRecordAfterMs: Number.POSITIVE_INFINITY }],
      ['reconcile.maxAgeMs', { maxAgeMs: '600000' }],
      ['reconcile.notMadeCloseAfterMs', { notMadeCloseAfterMs: Number('') - 1 }],
      ['reconcile.batchSize', { batchSize: 0 }],
      ['reconcile.batchSize', { batchSize: 2.5 }],
    ];
    for (const [name, reconcile] of bad) {
      expect(() => GatewaykitPlugin.init({ ...BASE, reconcile } as never), name).toThrow(name);
    }
  });

  it('honest: unset, 0 and whole numbers start', () => {
    for (const reconcile of [
      undefined,
      {},
      { afterMs: 0, noRecordAfterMs: 4000, batchSize: 2, maxAgeMs: 1 },
    ]) {
      expect(GatewaykitPlugin.init({ ...BASE, reconcile } as never)).toBe(GatewaykitPlugin);
    }
  });
});
