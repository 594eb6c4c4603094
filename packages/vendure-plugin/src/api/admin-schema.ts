import gql from 'graphql-tag';

/**
 * Admin API extension: run the reconciliation now (the scheduled task runs it on its schedule), and
 * close an attempt it leaves open for a person (docs/inbound.md#closing-an-attempt).
 */
export const adminApiSchema = gql`
  "One payment attempt or gateway refund the reconciliation looked at"
  type GatewaykitReconcileItem {
    "attempt or refund"
    kind: String!
    orderCode: String!
    "The attempt's orderNo, or the refund's batchNo (merTrackNo when it has none)"
    reference: String!
    before: String!
    after: String!
    reason: String!
  }

  type GatewaykitReconcileResult {
    checked: Int!
    changed: Int!
    items: [GatewaykitReconcileItem!]!
  }

  type GatewaykitCloseAttemptResult {
    closed: Boolean!
    "The attempt's status after the call (none: this channel has no such attempt)"
    status: String!
    "Why it was refused, or the failure reason recorded"
    reason: String!
  }

  type GatewaykitCloseRefundIntentResult {
    closed: Boolean!
    "What was done, or why not"
    reason: String!
  }

  extend type Mutation {
    "Reconciles this channel's gateway payments and refunds left without an answer, now"
    gatewaykitReconcile: GatewaykitReconcileResult!
    """
    Closes an open payment attempt of this channel as failed, once the merchant portal shows no charge for it;
    for a charge that could not be applied to its order (still succeeded), frees the order it holds, once the
    charge is refunded in the merchant portal or its payment added to the order by hand
    """
    gatewaykitCloseAttempt(orderNo: String!, note: String!): GatewaykitCloseAttemptResult!
    """
    Closes a gateway refund of this channel whose record was lost (its admin request did not finish), once the
    merchant portal shows how it ended. made: true keeps it on the payment as a refund Vendure does not count
    (further refunds go through the portal); false lets the payment refund through Vendure again (only once
    the refund is older than reconcile.notMadeCloseAfterMs, 24 hours by default)
    """
    gatewaykitCloseRefundIntent(merTrackNo: String!, made: Boolean!, note: String!): GatewaykitCloseRefundIntentResult!
  }
`;
