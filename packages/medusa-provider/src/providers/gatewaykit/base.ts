import {
  billingDetail,
  type CardMethodDecision,
  type CheckoutFlow,
  checkoutFlowOf,
  customerRequest,
  decideInbound,
  type GatewayClient,
  GatewayValidationError,
  gatewayClientFor,
  isFinalOutcome,
  type KeptCard,
  mergeOutcome,
  normalizeLocalPaymentMethod,
  type PaymentOutcome,
  type PaymentSource,
  type RetiredCards,
  reconcileAttempt,
  redact,
  removeSavedCard,
  saveCardData,
  startPayment,
  storedAnswerOf,
} from '@gatewaykit/core';
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  CreateAccountHolderInput,
  CreateAccountHolderOutput,
  DeleteAccountHolderInput,
  DeleteAccountHolderOutput,
  DeletePaymentInput,
  DeletePaymentMethodInput,
  DeletePaymentMethodOutput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  ListPaymentMethodsInput,
  ListPaymentMethodsOutput,
  Logger,
  PaymentProviderContext,
  PaymentSessionStatus,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrieveAccountHolderInput,
  RetrieveAccountHolderOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  SavePaymentMethodInput,
  SavePaymentMethodOutput,
  UpdateAccountHolderInput,
  UpdateAccountHolderOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/framework/types';
import { AbstractPaymentProvider, MedusaError } from '@medusajs/framework/utils';
import { SAVE_WITH_THE_CARD_ELEMENT } from '../../lib/card-element';
import {
  type ChargeClaims,
  PostgresChargeClaims,
  SessionServiceChargeClaims,
  type SqlDatabase,
} from '../../lib/charge-claim';
import { DeletedPages } from '../../lib/deleted-pages';
import { retiredCardsIn } from '../../lib/element-card-bindings';
import { GatewayRefunds, type PaymentRows, type RefundRows } from '../../lib/gateway-refunds';
import { toMedusaError } from '../../lib/medusa-errors';
import { holdsCart, mayStillBePaid, type StoredSessions } from '../../lib/open-charges';
import {
  DEFAULT_FAIL_UNRECORDED_AFTER_SECONDS,
  type GatewaykitOptions,
  parseOptions,
} from '../../lib/options';
import { buildPaymentRequest, gatewayAmount } from '../../lib/payment-request';
import { whyPaymentReturned } from '../../lib/returned-payment';
import type { SaveCardInput } from '../../lib/save-card-input';
import { toSavedCard } from '../../lib/saved-card';
import { customerIdOf } from '../../lib/session-chooser';
import {
  completeSessionData,
  type GatewaykitSessionData,
  readSessionData,
  withOutcome,
} from '../../lib/session-data';
import { parseInitiateInput } from '../../lib/session-input';
import { sessionStatusFor } from '../../lib/session-status';

type Cradle = {
  logger: Logger;
  /** Medusa's Postgres connection (knex), given to every module and its providers. */
  __pg_connection__?: SqlDatabase;
  paymentSessionService?: StoredSessions;
  paymentService?: PaymentRows;
  refundService?: RefundRows;
};

/** What a charge sends, decided right before it is sent (card: the gateway's record of the method). */
export interface ChargePlan {
  source: PaymentSource;
  /** The card rule's decision (card sessions): tells afterCharge whether to keep the card. */
  decision?: CardMethodDecision | undefined;
}

/** The store's database as Medusa gives it to providers; a container without one (unit tests) has none. */
function databaseOf(cradle: Cradle): SqlDatabase | undefined {
  try {
    return cradle.__pg_connection__;
  } catch {
    return undefined; // a container without a database (unit tests)
  }
}

/**
 * Shared logic of the three gatewaykit services. The gateway charges at once (a sale), has no capture
 * or void, and reports results by signed callback/return; so the outcome lives in the session data and
 * authorizePayment reads it. Refunds and the gateway's record of a trade are on its OpenAPI host
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks).
 * Session data is written by the storefront at creation, so every key is parsed against an allow-list
 * and the provider returns the complete data it owns (docs/SECURITY.md).
 */
export abstract class GatewaykitBase extends AbstractPaymentProvider<GatewaykitOptions> {
  protected abstract readonly mode: CheckoutFlow;
  protected readonly options_: GatewaykitOptions;
  protected readonly logger_: Logger;
  private readonly sessions_: StoredSessions | undefined;
  private readonly claims_: ChargeClaims | undefined;
  private readonly gatewayRefunds: GatewayRefunds;

  static override validateOptions(options: Record<string, unknown>): void {
    parseOptions(options);
  }

  constructor(cradle: Cradle, options: GatewaykitOptions) {
    super(cradle, options);
    this.options_ = parseOptions(options);
    this.logger_ = cradle.logger;
    this.sessions_ = cradle.paymentSessionService;
    this.database = databaseOf(cradle);
    this.claims_ = this.chargeClaims(cradle);
    this.gatewayRefunds = new GatewayRefunds({
      logger: cradle.logger,
      options: this.options_,
      client: () => this.client,
      amountOf: (amount) => this.amountOf(amount),
      sessions: cradle.paymentSessionService,
      payments: cradle.paymentService,
      refunds: cradle.refundService,
      database: this.database,
    });
  }

  /** The store's database (Medusa's `__pg_connection__`); undefined only in unit tests without one. */
  protected readonly database: SqlDatabase | undefined;

  /** Where the right to send a session's charge is decided: the database (see charge-claim.ts). */
  protected chargeClaims(cradle: Cradle): ChargeClaims | undefined {
    if (this.database) return new PostgresChargeClaims(this.database);
    return cradle.paymentSessionService
      ? new SessionServiceChargeClaims(cradle.paymentSessionService)
      : undefined;
  }

  /** Overridable in unit tests to inject a fake client. */
  protected get client(): GatewayClient {
    return gatewayClientFor(this.options_);
  }

  /** The gateway payment source of a session, or undefined when the storefront still has to choose (card). */
  protected abstract paymentSource(data: Partial<GatewaykitSessionData>): PaymentSource | undefined;

  /**
   * Checks the storefront's choice when the session is created and returns the data to store; throwing
   * refuses the session (Medusa deletes the row it inserted). The card service checks the payment method.
   */
  protected async checkChoice(
    data: Partial<GatewaykitSessionData>,
    _context: PaymentProviderContext | undefined,
  ): Promise<Partial<GatewaykitSessionData>> {
    return data;
  }

  /** What the charge sends, decided right before sending; undefined when there is nothing to charge yet. */
  protected async chargePlan(data: Partial<GatewaykitSessionData>): Promise<ChargePlan | undefined> {
    const source = this.paymentSource(data);
    return source ? { source } : undefined;
  }

  /** Runs after a charge's answer (card: keeps a card the shopper asked to save); never throws. */
  protected async afterCharge(_plan: ChargePlan, _outcome: PaymentOutcome): Promise<KeptCard | undefined> {
    return undefined;
  }

  /** Hosted and local payments start at once so the storefront can redirect; cards start on authorize. */
  protected abstract readonly startsOnInitiate: boolean;

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    // Throwing deletes the session row Medusa inserted with the storefront's data, so nothing refused is kept.
    const incoming = parseInitiateInput(this.mode, input.data);
    const stored = (input.data ?? {}) as Record<string, unknown>;
    const orderNo = String(incoming.session_id ?? input.context?.idempotency_key ?? '');
    if (!orderNo)
      throw new MedusaError(MedusaError.Types.INVALID_DATA, 'gatewaykit: the payment session id is missing');
    let data: Partial<GatewaykitSessionData> = {
      orderNo,
      mode: this.mode,
      amount: this.amountOf(input),
      currency: input.currency_code.toUpperCase(),
      buyer: incoming.buyer,
      customerPaymentMethodId: incoming.customerPaymentMethodId,
      saveCard: incoming.saveCard,
      localMethod: incoming.localMethod,
      medusaCustomerId: customerIdOf(input.context),
    };
    data = await this.checkChoice(data, input.context);
    const plan = this.startsOnInitiate ? await this.chargePlan(data) : undefined;
    if (!plan) {
      return { id: orderNo, data: completeSessionData(data, stored), status: 'pending' };
    }

    const { request, attemptedAt, claimed } = await this.requestThenClaim(data, plan, input.context);
    // A session Medusa has just inserted is never sent yet; refuse rather than answer with another's state.
    if (claimed !== true) {
      throw new MedusaError(MedusaError.Types.CONFLICT, `gatewaykit: session ${orderNo} was already started`);
    }
    const outcome = await this.charge(request, data);
    if (outcome.status === 'failed') {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The gateway refused the payment: ${outcome.reason}`,
      );
    }
    data = withOutcome({ ...data, attemptedAt }, outcome);
    return { id: orderNo, data: completeSessionData(data, stored), status: sessionStatusFor(outcome) };
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const data = readSessionData(input.data);
    // Refunded in the merchant portal or charged back before any payment took it: Medusa reads the
    // session again under its cart lock before this, so a completion that passed the guard earlier
    // stops here (lib/returned-payment.ts).
    const returned = whyPaymentReturned({ data });
    if (returned) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The payment for this cart ${returned} before an order was placed; start a new cart to pay again`,
      );
    }
    if (isFinalOutcome(data.outcome) || data.attemptedAt) return this.statusOf(data);
    const plan = await this.chargePlan(data);
    if (!plan) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "gatewaykit card payment: create the session with data.customerPaymentMethodId (the card element's payment method, or a saved card of the logged-in customer) or use the hosted checkout provider",
      );
    }
    const { request, attemptedAt, claimed } = await this.requestThenClaim(data, plan, input.context);
    // Sent (or decided) by another request, on this instance or another: never a second charge.
    if (claimed !== true) return this.statusOf(claimed);
    const charged = await this.charge(request, data);
    // A callback may have stored a result while the charge was in flight (e.g. after an unknown
    // outcome). Medusa saves what we return over the stored data, so merge instead of overwriting. A
    // success answered by the charge itself is the top of the merge (docs/payment-states.md#monotonic-merge):
    // nothing stored can change it, so it needs no read (one query less on every paid checkout).
    const [kept, stored] = await Promise.all([
      this.afterCharge(plan, charged),
      charged.status === 'succeeded' ? undefined : this.storedOutcome(data.orderNo),
    ]);
    const { next } = mergeOutcome(stored, charged);
    return this.statusOf(withOutcome({ ...data, cardKept: kept ?? data.cardKept, attemptedAt }, next));
  }

  /**
   * The payment request, then the claim. Built before the claim: a request refused here (a session
   * without a buyer, e.g. a billing country Medusa did not check) must not leave the session marked
   * sent, which would hold the cart until the reconciliation gives up on a charge that never existed.
   */
  private async requestThenClaim(
    data: Partial<GatewaykitSessionData>,
    plan: ChargePlan,
    context: PaymentProviderContext | undefined,
  ) {
    const request = buildPaymentRequest({ options: this.options_, data, source: plan.source, context });
    const attemptedAt = new Date().toISOString();
    const claimed = await this.claim(data.orderNo, attemptedAt);
    return { request, attemptedAt, claimed };
  }

  /**
   * Exactly once (docs/safety-rules.md#dedupe-and-locking): the session is marked "sent" in the
   * database unless it already is (then its stored data is returned) or another session of the cart
   * may have taken money (refused). From the mark on, on every instance, the session is not deleted,
   * not sent again, and no other charge starts for the cart, even if this process dies before the answer.
   */
  private async claim(
    orderNo: string | undefined,
    attemptedAt: string,
  ): Promise<true | Partial<GatewaykitSessionData>> {
    if (!orderNo || !this.claims_) return true;
    const claim = await this.claims_.claim(orderNo, attemptedAt);
    if (claim.kind === 'claimed') return true;
    if (claim.kind === 'taken') return readSessionData(claim.data as Record<string, unknown>);
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `A payment for this cart (gateway orderNo ${claim.orderNo}) is still being confirmed by the gateway; no second payment is started until its result arrives`,
    );
  }

  /** The outcome currently stored for a session (written by the callback/return routes). */
  private async storedOutcome(orderNo: string | undefined): Promise<PaymentOutcome | undefined> {
    if (!orderNo || !this.sessions_) return undefined;
    try {
      const stored = await this.sessions_.retrieve(orderNo, { select: ['data'] });
      return readSessionData(stored.data ?? undefined).outcome;
    } catch {
      return undefined;
    }
  }

  /**
   * Sends the one money-moving request of an attempt whose claim this caller holds (the session row
   * already says "sent"). The mark is taken back only when the request provably never left (refused
   * by validation).
   */
  protected async charge(
    attempt: ReturnType<typeof buildPaymentRequest>,
    data: Partial<GatewaykitSessionData>,
  ): Promise<PaymentOutcome> {
    try {
      const outcome = await startPayment(this.client, attempt);
      this.logger_.info(`gatewaykit: ${attempt.source.kind} payment ${attempt.orderNo} -> ${outcome.status}`);
      return outcome;
    } catch (error) {
      if (error instanceof GatewayValidationError) await this.writeSessionData(data);
      throw toMedusaError(error, 'gatewaykit payment');
    }
  }

  private async writeSessionData(data: Partial<GatewaykitSessionData>): Promise<void> {
    if (!this.sessions_ || !data.orderNo) return;
    await this.sessions_.update({ id: data.orderNo, data: completeSessionData(data) });
  }

  protected statusOf(data: Partial<GatewaykitSessionData>): {
    status: PaymentSessionStatus;
    data: Record<string, unknown>;
  } {
    return { status: sessionStatusFor(data.outcome), data: { ...data } };
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    return this.statusOf(await this.withGatewayRecord(readSessionData(input.data)));
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const data = readSessionData(input.data);
    const read = await this.withGatewayRecord(data);
    return { data: read === data ? (input.data ?? {}) : { ...read } };
  }

  /**
   * The data with the gateway's record of the trade merged in, when the stored outcome is unknown or
   * pending (or the charge was sent without an answer): the same decision a callback gets
   * (docs/inbound.md), so a success is never replaced and an amount that differs is not taken.
   * Only read: the reconciliation job and the callback store outcomes.
   */
  private async withGatewayRecord(
    data: Partial<GatewaykitSessionData>,
  ): Promise<Partial<GatewaykitSessionData>> {
    const { orderNo, attemptedAt, amount, currency, outcome } = data;
    if (!orderNo || !attemptedAt || !amount || !currency) return data;
    if (outcome && outcome.status !== 'unknown' && outcome.status !== 'pending') return data;
    const found = await reconcileAttempt(
      this.client,
      {
        orderNo,
        sentAt: new Date(attemptedAt),
        orderAmount: amount,
        currency,
        stored: storedAnswerOf(outcome),
        flow: checkoutFlowOf(data.mode),
      },
      {
        pendingAfterMs:
          (this.options_.failUnrecordedAfterSeconds ?? DEFAULT_FAIL_UNRECORDED_AFTER_SECONDS) * 1000,
      },
    );
    if (!found.outcome) return data;
    const decision = decideInbound({ orderNo, orderAmount: amount, currency, outcome }, found.outcome);
    if (decision.kind !== 'changed') return data;
    this.logger_.info(`gatewaykit: ${orderNo}: ${found.reason}`);
    return withOutcome(data, decision.next);
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    // Nothing to change at the gateway: echo the data (the callback route writes outcomes this way),
    // keeping the stored amount in step with the cart for a charge that has not started yet.
    const data = readSessionData(input.data);
    const amount = this.amountOf(input);
    if (data.amount !== amount && data.attemptedAt) {
      this.logger_.warn(
        `gatewaykit: amount of ${data.orderNo} changed after the payment started; a new session is needed`,
      );
      return this.statusOf(data);
    }
    return this.statusOf({ ...data, amount, currency: input.currency_code.toUpperCase() });
  }

  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    // The gateway sells: a success is already captured (authorize returns `captured`).
    return { data: input.data ?? {} };
  }

  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    this.logger_.warn(
      `gatewaykit: cancel of ${readSessionData(input.data).orderNo ?? 'a payment'} is a no-op (the gateway has no void)`,
    );
    return { data: input.data ?? {} };
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = readSessionData(input.data);
    if (holdsCart(data)) {
      // Medusa deletes sessions when the cart changes or another session is created. This one's charge
      // took (or may have taken) money, or its failure is still to be checked against the cart's order:
      // refusing keeps the row, so its callback (or the reconciliation) still finds the cart.
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        data.unpaidOrderCheck === 'due'
          ? `gatewaykit: session ${data.orderNo ?? ''} is kept: its payment failed, and whether the cart's order is left unpaid is still to be checked (the reconciliation does it)`
          : `gatewaykit: session ${data.orderNo ?? ''} is kept: its payment is ${data.outcome?.status ?? 'sent'} at the gateway and its result must reach this cart`,
      );
    }
    if (mayStillBePaid(data)) {
      // Kept before the row goes, so the reconciliation can ask the gateway about the page when every
      // callback is lost; if it cannot be kept, the deletion (and the cart change) is refused.
      if (this.database) await new DeletedPages(this.database).keep(data);
      this.logger_.warn(
        `gatewaykit: session ${data.orderNo ?? ''} deleted while its gateway page was open; a payment made there later is reported as unapplied`,
      );
    }
    return { data: input.data ?? {} };
  }

  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    return this.gatewayRefunds.refund(input);
  }

  /**
   * Medusa's stock webhook route (`/hooks/payment/:provider`) never acts for gatewaykit: the plugin's
   * own callback route is the gateway's callbackUrl, and it records a result only for the sessions of
   * the account whose key signed it, with the amount checked and the cart guards kept. The stock route
   * would run Medusa's payment workflow for whatever session id a signed body names, whichever entry's
   * key signed it (a test account's key may be public), authorizing (charging) and completing another
   * entry's cart past those checks (docs/SECURITY.md §4).
   */
  /**
   * Medusa's own webhook route (/hooks/payment/<provider>) is never the gateway's: callbacks are
   * verified and recorded at /hooks/gatewaykit/callback (docs/inbound.md). Whatever arrives here is
   * ignored, and said (without its content, which anyone can write), so a misconfigured callback URL shows.
   */
  async getWebhookActionAndData(_payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    this.logger_.warn(
      "gatewaykit: a request to Medusa's payment webhook route was ignored; the gateway's callbacks go to /hooks/gatewaykit/callback",
    );
    return { action: 'not_supported' };
  }

  async createAccountHolder(input: CreateAccountHolderInput): Promise<CreateAccountHolderOutput> {
    const existing = (input.context.account_holder?.data as { id?: string } | undefined)?.id;
    if (existing) return { id: existing, data: input.context.account_holder!.data };
    const customer = input.context.customer;
    try {
      const created = await this.client.customers.create(
        customerRequest(
          {
            email: customer.email,
            firstName: customer.first_name,
            lastName: customer.last_name,
            phone: customer.phone,
          },
          `medusa customer ${customer.id}`,
        ),
      );
      return {
        id: created.customerId,
        data: { id: created.customerId, email: created.email ?? customer.email },
      };
    } catch (error) {
      throw toMedusaError(error, 'gatewaykit: creating the gateway customer failed');
    }
  }

  async retrieveAccountHolder(input: RetrieveAccountHolderInput): Promise<RetrieveAccountHolderOutput> {
    const found = await this.client.customers.retrieve(input.id);
    return { id: found.customerId, data: { id: found.customerId, email: found.email } };
  }

  async updateAccountHolder(_input: UpdateAccountHolderInput): Promise<UpdateAccountHolderOutput> {
    // The gateway API has no customer update operation.
    return {};
  }

  async deleteAccountHolder(input: DeleteAccountHolderInput): Promise<DeleteAccountHolderOutput> {
    const id = (input.context.account_holder.data as { id?: string } | undefined)?.id;
    if (id) await this.client.customers.delete(id);
    return {};
  }

  async listPaymentMethods(input: ListPaymentMethodsInput): Promise<ListPaymentMethodsOutput> {
    const customerId = (input.context?.account_holder?.data as { id?: string } | undefined)?.id;
    if (!customerId) return [];
    const methods = await this.client.paymentMethods.list(customerId);
    // A saved card is never a fresh element card; this also covers cards saved before saves retired
    // them (docs/card-element.md#who-owns-a-card).
    await this.retiredCards('listing cards').retireUnbound(
      methods.map((method) => method.customerPaymentMethodId),
    );
    return methods.map((method) => ({ id: method.customerPaymentMethodId, data: toSavedCard(method) }));
  }

  async savePaymentMethod(input: SavePaymentMethodInput): Promise<SavePaymentMethodOutput> {
    if (!this.options_.allowRawCardData) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, SAVE_WITH_THE_CARD_ELEMENT);
    }
    const customerId = (input.context?.account_holder?.data as { id?: string } | undefined)?.id;
    if (!customerId)
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, 'Saving a card needs a logged-in customer');
    // The route parsed the body (parseSaveCardInput); the client's validation refuses anything missing.
    const { card, billingDetail: billing } = (input.data ?? {}) as Partial<SaveCardInput>;
    try {
      const saved = await saveCardData(
        this.client,
        {
          card: card!,
          billingDetail: billing?.address ? billingDetail(billing, billing.address) : billing!,
          customerId,
        },
        this.retiredCards('saving a card'),
      );
      return { id: saved.customerPaymentMethodId, data: toSavedCard(saved) };
    } catch (error) {
      throw toMedusaError(error, 'gatewaykit: saving the card failed');
    }
  }

  async deletePaymentMethod(input: DeletePaymentMethodInput): Promise<DeletePaymentMethodOutput> {
    try {
      await removeSavedCard(this.client, input.data.id, this.retiredCards('removing a card'));
    } catch (error) {
      throw toMedusaError(error, 'gatewaykit: removing the card failed');
    }
    return { data: {} };
  }

  /**
   * Where saved cards are retired (lib/element-card-bindings.ts): removed ones once detached, and ones
   * saved from card data, would otherwise pass for fresh element cards.
   */
  protected retiredCards(what: string): RetiredCards {
    return retiredCardsIn(this.storeDatabase(what));
  }

  /** The store's database, for what cannot be done without it (`what`, for the error). */
  protected storeDatabase(what: string): SqlDatabase {
    if (!this.database) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `gatewaykit: ${what} needs the store database`,
      );
    }
    return this.database;
  }

  /** Local payment method of a session: chosen by the storefront, else the configured default. */
  protected localMethodOf(data: Partial<GatewaykitSessionData>): string | undefined {
    const chosen = data.localMethod ?? this.options_.localPaymentMethod;
    return chosen ? normalizeLocalPaymentMethod(chosen) : undefined;
  }

  protected amountOf(input: { amount: Parameters<typeof gatewayAmount>[0]; currency_code: string }): string {
    try {
      return gatewayAmount(input.amount, input.currency_code);
    } catch (error) {
      // An amount or currency the gateway cannot take is the request's fault (400), not the server's.
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `gatewaykit: amount ${String(redact(String(input.amount)))} ${input.currency_code}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
