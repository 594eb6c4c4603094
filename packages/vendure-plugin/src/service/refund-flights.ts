import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EventBus, RefundEvent } from '@vendure/core';

/**
 * Refunds this process is sending, by merTrackNo. The gateway may send a refund's notice before
 * Vendure has committed the Refund it answers (Vendure saves it after createRefund returns, in the
 * admin's transaction): the notice waits here until that commit (RefundEvent `created`) or `maxWaitMs`.
 * A notice reaching another instance first finds no refund, is noted, and the reconciliation settles
 * the refund from the gateway's record.
 */
@Injectable()
export class RefundFlights implements OnApplicationBootstrap {
  private readonly flights = new Map<string, { done: Promise<void>; end: () => void }>();

  /** Longer than a refund mutation takes after the gateway answered; a rolled-back one never commits. */
  maxWaitMs = 15_000;

  constructor(private readonly eventBus?: EventBus) {}

  onApplicationBootstrap(): void {
    // The event bus hands RefundEvents over once their transaction committed (none on a rollback).
    this.eventBus?.ofType(RefundEvent).subscribe((event) => {
      const merTrackNo = (event.refund.metadata as { merTrackNo?: unknown } | undefined)?.merTrackNo;
      if (event.type === 'created' && typeof merTrackNo === 'string') this.end(merTrackNo);
    });
  }

  begin(merTrackNo: string): void {
    this.flights.get(merTrackNo)?.end();
    let end = () => {};
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    const timer = setTimeout(() => this.end(merTrackNo), this.maxWaitMs);
    timer.unref?.();
    this.flights.set(merTrackNo, {
      done,
      end: () => {
        clearTimeout(timer);
        end();
      },
    });
  }

  end(merTrackNo: string): void {
    const flight = this.flights.get(merTrackNo);
    if (!flight) return;
    this.flights.delete(merTrackNo);
    flight.end();
  }

  /** Resolves at once when the refund is not in flight here. */
  async settled(merTrackNo: string | undefined): Promise<void> {
    if (merTrackNo === undefined) return;
    await this.flights.get(merTrackNo)?.done;
  }
}
