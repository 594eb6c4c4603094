/**
 * Serialises async work per key inside this process (e.g. per order). The database-level guard
 * (versioned update of the attempt row) is what makes it exactly-once across instances; this lock
 * avoids pointless contention and, on SQLite/sql.js (one shared connection), interleaved transactions.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
