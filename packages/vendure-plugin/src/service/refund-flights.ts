import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EventBus, RefundEvent, type RequestContext, TransactionSubscriber } from '@vendure/core';
import { contextManagerOf } from './context-manager';

interface Flight {
  done: Promise<void>;
  end: () => void;
}

/**
 * Refunds this process is sending, by merTrackNo. The gateway may send a refund's notice before
 * Vendure has committed the Refund it answers (Vendure saves it after createRefund returns, in the
 * admin's transaction): the notice waits here until that transaction ends. It ends the flight when it
 * commits (RefundEvent `created`, or the transaction's end) or rolls back (the Refund then never
 * exists: the notice is noted as matching no refund), and `maxWaitMs` bounds the wait should neither
 * be seen. A notice holds its request's database connection while it waits (one-connection.ts), so
 * the wait is the admin transaction's length, not the bound. A notice reaching another instance first
 * finds no refund, is noted, and the reconciliation settles the refund from the gateway's record.
 */
@Injectable()
export class RefundFlights implements OnApplicationBootstrap {
  private readonly flights = new Map<string, Flight>();

  /** Longer than a refund mutation takes after the gateway answered. */
  maxWaitMs = 15_000;

  constructor(
    private readonly eventBus?: EventBus,
    private readonly transactions?: TransactionSubscriber,
  ) {}

  onApplicationBootstrap(): void {
    // The event bus hands RefundEvents over once their transaction committed (none on a rollback).
    this.eventBus?.ofType(RefundEvent).subscribe((event) => {
      const merTrackNo = (event.refund.metadata as { merTrackNo?: unknown } | undefined)?.merTrackNo;
      if (event.type === 'created' && typeof merTrackNo === 'string') this.end(merTrackNo);
    });
  }

  /** A refund of `ctx` (the admin's transaction, when it runs in one) is being sent. */
  begin(merTrackNo: string, ctx?: RequestContext): void {
    this.flights.get(merTrackNo)?.end();
    let end = () => {};
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    const timer = setTimeout(() => this.end(merTrackNo), this.maxWaitMs);
    timer.unref?.();
    const flight: Flight = {
      done,
      end: () => {
        clearTimeout(timer);
        end();
      },
    };
    this.flights.set(merTrackNo, flight);
    const runner = ctx ? contextManagerOf(ctx)?.queryRunner : undefined;
    if (runner?.isTransactionActive && this.transactions) {
      // Commit or rollback: either way the Refund is now what it will be. Only this flight ends, not a
      // later one for the same merTrackNo.
      const ended = () => {
        if (this.flights.get(merTrackNo) === flight) this.end(merTrackNo);
      };
      this.transactions.awaitRelease(runner).then(ended, ended);
    }
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
