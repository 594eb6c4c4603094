/**
 * The time that the ages of payment attempts are judged against: another method's hold, a gateway
 * page's block, the reconciliation's windows. `createdAt` is written by the database's clock in its
 * session's time zone and read back as this process's local time, so an age is judged on the
 * database's clock: this process's, moved by how far the database's local time reads from it
 * (database-clock.ts measures it at start and every few minutes; 0 when they agree). Each process
 * measures its own, against the database every instance shares (docs/safety-rules.md#time-zones).
 */
let databaseOffsetMs = 0;

/** Now, on the clock `createdAt` columns are read on. */
export function attemptClockNow(): number {
  return Date.now() + databaseOffsetMs;
}

/** Sets how far the database's local time reads from this process's clock (database-clock.ts). */
export function useDatabaseClockOffset(offsetMs: number): void {
  databaseOffsetMs = offsetMs;
}

/** The offset in use (0 when the clocks agree). */
export function databaseClockOffset(): number {
  return databaseOffsetMs;
}
