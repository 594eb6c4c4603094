import type { AttemptStore, MerchantAlert, PaymentOutcome, StoredAttempt } from '../../src/index.js';

/** An AttemptStore of one attempt in memory (a fake collaborator for core's decisions). */
export class MemoryAttempts implements AttemptStore {
  readonly attempts = new Map<string, StoredAttempt>();
  readonly alerts: MerchantAlert[] = [];

  constructor(
    private readonly attempt: Omit<StoredAttempt, 'outcome'>,
    outcome?: PaymentOutcome,
  ) {
    this.attempts.set(attempt.orderNo, { ...attempt, outcome });
  }

  exclusive<T>(_orderNo: string, work: () => Promise<T>): Promise<T> {
    return work();
  }

  async find(orderNo: string) {
    return this.attempts.get(orderNo);
  }

  async save(stored: StoredAttempt, next: PaymentOutcome) {
    this.attempts.set(stored.orderNo, { ...stored, outcome: next });
    return true;
  }

  async alert(alert: MerchantAlert) {
    this.alerts.push(alert);
  }

  /** The attempt's outcome now. */
  outcome(): PaymentOutcome | undefined {
    return this.attempts.get(this.attempt.orderNo)?.outcome;
  }

  status() {
    return this.outcome()?.status;
  }
}
