import { HANDLER_CODE } from '../constants';
import { argsToRecord, MethodConfigError, parseMethodArgs } from './method-args';

/** The parts of a stored PaymentMethod this reads. */
interface StoredMethod {
  code: string;
  enabled: boolean;
  handler: { code: string; args: { name: string; value: string }[] };
}

/**
 * The gateway payment methods whose stored arguments are refused now, and why: a rule added since
 * they were saved (an environment and a baseUrl together, say) stops their checkouts, callbacks,
 * reconciliation and refunds until an admin fixes them, so the server says so when it starts
 * (config/method-args.subscriber.ts) rather than only when a payment fails.
 */
export function refusedStoredMethods(methods: readonly StoredMethod[]): { code: string; reason: string }[] {
  const refused: { code: string; reason: string }[] = [];
  for (const method of methods) {
    if (method.handler?.code !== HANDLER_CODE) continue;
    try {
      parseMethodArgs(argsToRecord(method.handler.args));
    } catch (error) {
      if (!(error instanceof MethodConfigError)) throw error;
      refused.push({ code: method.code, reason: error.message });
    }
  }
  return refused;
}
