/**
 * Virtual clock. `now()` is the real time plus an offset that tests move with setOffset/advance.
 * Everything time-based in the sandbox reads it: the request-time window, request-id expiry and the
 * callback schedule. Scheduled work has a virtual due time; it runs when its (compressed) real timer
 * fires or as soon as the clock is moved past it, whichever comes first.
 */
interface Task {
  dueAt: number;
  run: () => void;
  timer: NodeJS.Timeout;
}

export class VirtualClock {
  private offsetMs = 0;
  private nextId = 1;
  private readonly tasks = new Map<number, Task>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(offsetMs: number): void {
    this.offsetMs = offsetMs;
    this.fireDue();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
    this.fireDue();
  }

  /** Runs `run` after `virtualDelayMs` of virtual time, or after `realDelayMs` of real time. Returns a cancel function. */
  schedule(virtualDelayMs: number, realDelayMs: number, run: () => void): () => void {
    const id = this.nextId++;
    const timer = setTimeout(() => this.fire(id), Math.max(0, realDelayMs));
    // Scheduled retries must not keep a CLI or a test process alive on their own.
    timer.unref();
    this.tasks.set(id, { dueAt: this.now() + virtualDelayMs, run, timer });
    return () => {
      const task = this.tasks.get(id);
      if (task) clearTimeout(task.timer);
      this.tasks.delete(id);
    };
  }

  /** Virtual due times of pending tasks (for the state dump). */
  get pending(): number {
    return this.tasks.size;
  }

  cancelAll(): void {
    for (const task of this.tasks.values()) clearTimeout(task.timer);
    this.tasks.clear();
  }

  reset(): void {
    this.cancelAll();
    this.offsetMs = 0;
  }

  private fire(id: number): void {
    const task = this.tasks.get(id);
    if (!task) return;
    clearTimeout(task.timer);
    this.tasks.delete(id);
    task.run();
  }

  private fireDue(): void {
    const now = this.now();
    const due = [...this.tasks.entries()]
      .filter(([, task]) => task.dueAt <= now)
      .sort((a, b) => a[1].dueAt - b[1].dueAt);
    for (const [id] of due) this.fire(id);
  }
}
