import type { RequestContext } from '@vendure/core';
import { MethodConfigError } from '../config/method-args';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { MethodConfigService, ResolvedMethod } from './method-config.service';
import type { ContextOf } from './reconcile-settings';

/**
 * The attempt's channel context and gateway method, for the reconciliation to ask the gateway about it,
 * or why it cannot be asked (its channel or method is gone). A method disabled since still settles
 * what was paid through it.
 */
export async function methodOfAttempt(
  methods: MethodConfigService,
  row: GatewaykitPaymentAttempt,
  contextOf: ContextOf,
): Promise<{ ctx: RequestContext; method: ResolvedMethod } | { reason: string }> {
  const ctx = await contextOf(row.channelId);
  if (!ctx) return { reason: `channel ${row.channelId} no longer exists` };
  try {
    return { ctx, method: await methods.resolve(ctx, row.paymentMethodCode, { includeDisabled: true }) };
  } catch (error) {
    if (!(error instanceof MethodConfigError)) throw error;
    return { reason: error.message };
  }
}
