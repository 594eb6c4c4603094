/**
 * One HTTP request/answer on an undici dispatcher, the answer read whole as text.
 *
 * Uses `dispatch()` with a small handler rather than `request()`: `request()` builds a Readable body
 * stream, an AsyncResource and a body consumer per call, which costs more CPU than validating and
 * signing the request (packages/core/bench/run.ts shows the difference). Errors are undici's own, so
 * network-errors.ts classifies them exactly as it would for `request()`.
 */
import { type Dispatcher, errors } from 'undici';

export interface HttpAnswer {
  status: number;
  text: string;
}

/** Larger answers are refused: no gateway answer comes near it, and a runaway body must not fill memory. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * undici's headers/body timers tick about once a second, so a short timeout could fire up to a second
 * late. Below this, the exchange arms a precise timer of its own (only then: it costs per request).
 */
export const COARSE_TIMER_LIMIT_MS = 5000;

export class AnswerTooLargeError extends Error {
  readonly code = 'GK_ANSWER_TOO_LARGE';
  constructor() {
    super(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

/**
 * Collects one answer. A class rather than an object of closures: one allocation per request, and its
 * methods are shared. It implements undici 7's classic handler hooks (onConnect/onHeaders/onData/...),
 * which undici runs natively and which its own request() uses; the newer controller hooks are adapted
 * onto these with an extra wrapper, controller and parsed header object per request.
 */
class AnswerCollector implements Dispatcher.DispatchHandler {
  private abortRequest: ((reason?: Error) => void) | undefined;
  /** Set by an abort that came before the request reached a socket; applied as soon as it does. */
  private abortReason: Error | undefined;
  private status = 0;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** The caller's signal fired. */
  handleEvent(): void {
    this.abortWith(this.signal?.reason);
  }

  /** A timeout in undici's own error classes, so it is classified like undici's timers. */
  armTimeout(timeoutMs: number): void {
    this.timer = setTimeout(() => {
      this.abortWith(this.status === 0 ? new errors.HeadersTimeoutError() : new errors.BodyTimeoutError());
    }, timeoutMs);
  }

  private abortWith(reason: Error | undefined): void {
    this.abortReason = reason;
    this.abortRequest?.(reason);
  }

  private settle(): void {
    this.signal?.removeEventListener('abort', this);
    if (this.timer) clearTimeout(this.timer);
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.abortReason !== undefined) abort(this.abortReason);
  }

  onHeaders(statusCode: number): boolean {
    // 1xx answers come before the real one: keep only the final status and its body.
    this.status = statusCode;
    this.chunks = [];
    this.bytes = 0;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.bytes > MAX_ANSWER_BYTES) {
      this.abortRequest?.(new AnswerTooLargeError());
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.settle();
    const { chunks } = this;
    const text =
      chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve({ status: this.status, text });
  }

  onError(error: Error): void {
    this.settle();
    this.reject(error);
  }
}

export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<HttpAnswer> {
  return new Promise<HttpAnswer>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const collector = new AnswerCollector(resolve, reject, signal);
    signal?.addEventListener('abort', collector, { once: true });
    if (timeoutMs < COARSE_TIMER_LIMIT_MS) collector.armTimeout(timeoutMs);
    dispatcher.dispatch(options, collector);
  });
}
