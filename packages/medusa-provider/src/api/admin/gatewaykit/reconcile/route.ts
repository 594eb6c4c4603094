import type { AuthenticatedMedusaRequest, MedusaResponse } from '@medusajs/framework/http';
import { MedusaError } from '@medusajs/framework/utils';
import { isSessionId, refuseUnknownFields } from '../../../../lib/admin-body';
import { runReconciliation } from '../../../../lib/reconcile-run';

/**
 * Runs the reconciliation job's work now (admins only): every open charge past its account's
 * reconcileAfterSeconds, or, with `{ orderNos: [...] }`, the named sessions whatever their age.
 * Answers what was found for each payment and refund.
 */
export async function POST(req: AuthenticatedMedusaRequest, res: MedusaResponse): Promise<void> {
  const report = await runReconciliation(req.scope, orderNosOf(req.body));
  res.status(200).json(report);
}

function orderNosOf(body: unknown): { orderNos?: string[] } {
  if (body === undefined || body === null) return {};
  const { orderNos, ...rest } = body as { orderNos?: unknown };
  refuseUnknownFields(rest);
  if (orderNos === undefined) return {};
  if (
    !Array.isArray(orderNos) ||
    orderNos.length === 0 ||
    orderNos.length > 100 ||
    !orderNos.every(isSessionId)
  ) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      'orderNos: must be a list of 1 to 100 payment session ids',
    );
  }
  return { orderNos };
}
