import { PermissionDefinition } from '@vendure/core';

/** Who may run the reconciliation on demand (Admin API `gatewaykitReconcile`). */
export const gatewaykitReconcilePermission = new PermissionDefinition({
  name: 'GatewaykitReconcile',
  description: 'Allows running the card gateway reconciliation now',
});
