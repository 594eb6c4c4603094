import { PermissionDefinition } from '@vendure/core';

/**
 * Who may run the reconciliation on demand (Admin API `gatewaykitReconcile`) and close an attempt it
 * leaves open for a person (`gatewaykitCloseAttempt`).
 */
export const gatewaykitReconcilePermission = new PermissionDefinition({
  name: 'GatewaykitReconcile',
  description:
    'Allows running the card gateway reconciliation now, closing an attempt it leaves open, and closing a gateway refund whose record was lost',
});
