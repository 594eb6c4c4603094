import gql from 'graphql-tag';

/** Admin API extension: run the reconciliation now (the scheduled task runs it on its schedule). */
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

  extend type Mutation {
    "Reconciles this channel's gateway payments and refunds left without an answer, now"
    gatewaykitReconcile: GatewaykitReconcileResult!
  }
`;
