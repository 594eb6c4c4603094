/**
 * Transport faults per operation, consumed once, N times or always. They exist to prove what the
 * client does when the network lies, above all `commit-then-drop`: the charge is recorded and its
 * callback sent, but the connection dies before the response, so only an unknown outcome is honest.
 */
import { newShortId } from './ids.js';
import { type OperationName, resolveOperationName } from './router.js';

export const FAULT_KINDS = [
  'latency',
  'hang',
  'reset',
  '5xx',
  'truncated',
  'commit-then-drop',
  'unlisted',
] as const;

/**
 * The record reads an `unlisted` fault can hit: they answer as if the record did not exist (the
 * gateway's read side behind its writes), so a client's "no record" rule can be tried on a trade the
 * gateway did acknowledge.
 */
const RECORD_READS = ['listTransactions', 'retrieveTransaction', 'listChargebacks'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultInput {
  /** Operation name (`confirmCharge`), its path (`/confirmCharge`, `GET /customers`) or `*`. */
  route: string;
  kind: FaultKind;
  /** How many matching requests it hits; default 1. */
  times?: number | 'always' | undefined;
  /** Latency in ms (`latency`; default 1000). */
  ms?: number | undefined;
  /** HTTP status for `5xx` (default 503). */
  status?: number | undefined;
}

export interface FaultRule {
  id: string;
  route: OperationName | '*';
  kind: FaultKind;
  remaining: number | 'always';
  ms: number;
  status: number;
  hits: number;
}

export class FaultError extends Error {}

export class FaultRegistry {
  private rules: FaultRule[] = [];

  add(input: FaultInput): FaultRule {
    const route = typeof input.route === 'string' ? resolveOperationName(input.route) : undefined;
    if (!route)
      throw new FaultError(
        `unknown route ${JSON.stringify(input.route)}: use an operation name, its path or *`,
      );
    if (!FAULT_KINDS.includes(input.kind))
      throw new FaultError(`kind must be one of ${FAULT_KINDS.join(', ')}`);
    if (input.kind === 'unlisted' && !(RECORD_READS as readonly string[]).includes(route)) {
      throw new FaultError(`an unlisted fault hits a record read: ${RECORD_READS.join(', ')}`);
    }
    const times = input.times ?? 1;
    if (times !== 'always' && !(Number.isInteger(times) && times > 0)) {
      throw new FaultError('times must be a positive integer or "always"');
    }
    const status = input.status ?? 503;
    if (!(Number.isInteger(status) && status >= 500 && status <= 599))
      throw new FaultError('status must be 500–599');
    const rule: FaultRule = {
      id: newShortId('fault'),
      route,
      kind: input.kind,
      remaining: times,
      ms: Math.max(0, input.ms ?? 1000),
      status,
      hits: 0,
    };
    this.rules.push(rule);
    return rule;
  }

  /** The first live rule for this operation, consumed by one hit. */
  take(operation: OperationName): FaultRule | undefined {
    const rule = this.rules.find(
      (candidate) => (candidate.route === operation || candidate.route === '*') && candidate.remaining !== 0,
    );
    if (!rule) return undefined;
    rule.hits++;
    if (rule.remaining !== 'always') rule.remaining--;
    return { ...rule };
  }

  list(): readonly FaultRule[] {
    return this.rules;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length < before;
  }

  clear(): void {
    this.rules = [];
  }
}
