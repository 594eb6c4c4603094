import { Mutation, Resolver } from '@nestjs/graphql';
import { Allow, Ctx, RequestContext } from '@vendure/core';
import { gatewaykitReconcilePermission } from '../config/permissions';
import { type ReconcileReport, ReconcileService } from '../service/reconcile.service';

@Resolver()
export class GatewaykitAdminResolver {
  constructor(private readonly reconciler: ReconcileService) {}

  // Only the admin's own channel: a permission is granted per channel.
  @Mutation()
  @Allow(gatewaykitReconcilePermission.Permission)
  gatewaykitReconcile(@Ctx() ctx: RequestContext): Promise<ReconcileReport> {
    return this.reconciler.run({ channelId: ctx.channelId });
  }
}
