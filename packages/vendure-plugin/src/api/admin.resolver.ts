import { Args, Mutation, Resolver } from '@nestjs/graphql';
import { Allow, Ctx, RequestContext, UserInputError } from '@vendure/core';
import { gatewaykitReconcilePermission } from '../config/permissions';
import { type CloseAttemptReport, CloseAttemptService } from '../service/close-attempt.service';
import { type ReconcileReport, ReconcileService } from '../service/reconcile.service';
import { closeAttemptArgs, parseAdminInput } from './admin-input';

@Resolver()
export class GatewaykitAdminResolver {
  constructor(
    private readonly reconciler: ReconcileService,
    private readonly closer: CloseAttemptService,
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
}
