import gql from 'graphql-tag';

/**
 * Shop API extension: start a payment for the active order, the card element's session, and the active
 * customer's saved cards.
 */
export const shopApiSchema = gql`
  input GatewaykitCardInput {
    cardNo: String!
    cardExpireMonth: String!
    cardExpireYear: String!
    cardSecurityCode: String!
  }

  input GatewaykitStartPaymentInput {
    paymentMethodCode: String!
    "Card mode: id of one of the active customer's saved cards"
    savedCardId: String
    "Card mode, only where the store is PCI compliant (allowRawCardData)"
    card: GatewaykitCardInput
    "Card mode: the customerPaymentMethodId the card element (gatewaykitCardElement) created"
    elementPaymentMethodId: String
    "With elementPaymentMethodId: keep the card for the logged-in customer (gatewaykitSavedCards)"
    saveCard: Boolean
  }

  "What the storefront needs to mount the gateway's card element"
  type GatewaykitCardElement {
    "AsiabillPay(sessionToken); valid until expiresAt"
    sessionToken: String!
    "The gateway's browser SDK, to load with a script tag"
    scriptUrl: String!
    expiresAt: DateTime!
  }

  "The shopper must be sent to this URL (hosted page, 3-D Secure, local method)"
  type GatewaykitPaymentRedirect {
    url: String!
    orderNo: String!
  }

  "The payment succeeded and the order is paid"
  type GatewaykitPaymentCompleted {
    order: Order!
  }

  "The gateway has not decided yet; the order is paid as soon as its callback arrives"
  type GatewaykitPaymentPending {
    orderNo: String!
    message: String!
  }

  "The payment could not be made; the order can be paid again"
  type GatewaykitPaymentError {
    errorCode: String!
    message: String!
  }

  union GatewaykitPaymentResult =
      GatewaykitPaymentRedirect
    | GatewaykitPaymentCompleted
    | GatewaykitPaymentPending
    | GatewaykitPaymentError

  type GatewaykitSavedCard {
    id: String!
    brand: String
    last4: String
    maskCardNo: String!
  }

  input GatewaykitSaveCardInput {
    paymentMethodCode: String!
    card: GatewaykitCardInput!
    line1: String!
    city: String!
    countryCode: String!
    postalCode: String
    province: String
  }

  extend type Query {
    gatewaykitSavedCards(paymentMethodCode: String!): [GatewaykitSavedCard!]!
    gatewaykitCardElement(paymentMethodCode: String!): GatewaykitCardElement!
  }

  extend type Mutation {
    gatewaykitStartPayment(input: GatewaykitStartPaymentInput!): GatewaykitPaymentResult!
    gatewaykitSaveCard(input: GatewaykitSaveCardInput!): GatewaykitSavedCard!
    gatewaykitRemoveSavedCard(paymentMethodCode: String!, id: String!): Boolean!
  }
`;
