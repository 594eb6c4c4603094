import { afterEach, describe, expect, it } from 'vitest';
import type { GatewaykitRefundIntent } from '../src/entity/refund-intent.entity';
import { useDatabaseClockOffset } from '../src/service/attempt-clock';
import { CloseRefundIntentService } from '../src/service/close-refund-intent.service';

/**
 * A lost refund may be closed as not made only once it cannot still be under way (`reconcile.notMadeCloseAfterMs`),
 * judged on the clock its `createdAt` is read on: the database's (docs/safety-rules.md#time-zones).
 */
describe('closing a lost refund as not made', () => {
  const HOUR = 60 * 60 * 1000;
  const service = new CloseRefundIntentService(
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    { reconcile: { notMadeCloseAfterMs: 60_000 } } as never,
  );
  const waitFor = (intent: Partial<GatewaykitRefundIntent>) =>
    (
      service as unknown as {
        tooYoungToCloseAsNotMade(intent: Partial<GatewaykitRefundIntent>): string | undefined;
      }
    ).tooYoungToCloseAsNotMade({ merTrackNo: 'A-P1-R1', ...intent });
  afterEach(() => useDatabaseClockOffset(0));

  it('attack: a database clock two hours behind does not make a refund sent 30 s ago look old enough (found by review)', () => {
    useDatabaseClockOffset(-2 * HOUR);
    // Written 30 s ago on the database's clock, read back as this process's local time.
    const refusal = waitFor({ createdAt: new Date(Date.now() - 2 * HOUR - 30_000) });
    expect(refusal).toMatch(
      /^refund A-P1-R1 was sent 30 s ago and may still be under way at the gateway \(its notice may still come\): it can be closed as not made in (30|31) s$/,
    );
  });

  it('a refund older than notMadeCloseAfterMs on the database clock may be closed as not made', () => {
    useDatabaseClockOffset(2 * HOUR);
    expect(waitFor({ createdAt: new Date(Date.now() + 2 * HOUR - 61_000) })).toBeUndefined();
    useDatabaseClockOffset(0);
    expect(waitFor({ createdAt: new Date(Date.now() - 61_000) })).toBeUndefined();
  });
});
