import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { Allow, Ctx, RequestContext, Transaction, UserInputError } from '@vendure/core';
import { gatewaykitReconcilePermission } from '../config/permissions';
import { type CloseAttemptReport, CloseAttemptService } from '../service/close-attempt.service';
import {
  type CloseRefundIntentReport,
  CloseRefundIntentService,
} from '../service/close-refund-intent.service';
import { type ReconcileReport, ReconcileService } from '../service/reconcile.service';
import { closeAttemptArgs, closeRefundIntentArgs, parseAdminInput } from './admin-input';

@Resolver()
export class GatewaykitAdminResolver {
  constructor(
    private readonly reconciler: ReconcileService,
    private readonly closer: CloseAttemptService,
    private readonly intentCloser: CloseRefundIntentService,
  ) {}

  // Only the admin's own channel: a permission is granted per channel.
  @Mutation()
  @Allow(gatewaykitReconcilePermission.Permission)
  gatewaykitReconcile(@Ctx() ctx: RequestContext): Promise<ReconcileReport> {
    return this.reconciler.run({ channelId: ctx.channelId });
  }

  // Same permission and channel scope as the reconciliation it completes.
  @Mutation()
  @Allow(gatewaykitReconcilePermission.Permission)
  gatewaykitCloseAttempt(
    @Ctx() ctx: RequestContext,
    @Args() args: { orderNo: string; note: string },
  ): Promise<CloseAttemptReport> {
    const parsed = parseAdminInput(closeAttemptArgs, args);
    if (!parsed.ok) throw new UserInputError(parsed.message);
    return this.closer.close(ctx, parsed.value.orderNo, parsed.value.note);
  }

  // The refund section's row lock is held until this request's transaction ends.
  @Transaction()
  @Mutation()
  @Allow(gatewaykitReconcilePermission.Permission)
  gatewaykitCloseRefundIntent(
    @Ctx() ctx: RequestContext,
    @Args() args: { merTrackNo: string; made: boolean; note: string },
  ): Promise<CloseRefundIntentReport> {
    const parsed = parseAdminInput(closeRefundIntentArgs, args);
    if (!parsed.ok) throw new UserInputError(parsed.message);
    return this.intentCloser.close(ctx, parsed.value);
  }
}
