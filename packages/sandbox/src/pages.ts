/**
 * Hosted pages: 3-D Secure challenge, hosted card checkout, local method. Each is one form posting
 * to its own URL with buttons name="outcome" value success|fail|abandon, so a person or a script
 * (`fetch(redirectUrl, {method: 'POST', body: new URLSearchParams(...), redirect: 'manual'})`) can
 * finish the payment. Finishing answers 303 to the signed returnUrl and sends the callback.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CardBehaviour, summarizeCard, TEST_CARDS } from './cards.js';
import type { SandboxContext } from './context.js';
import { fromAnotherSite } from './cross-site.js';
import { escapeHtml, layout } from './html.js';
import { redirect, sendHtml } from './http.js';
import { ORDER_INFO, returnLocation, settle, startDelayedSuccess } from './orders.js';
import type { OrderKind, OrderPage, OrderRecord, OrderStatus } from './store.js';

const PAGE_OF_KIND: Record<OrderKind, OrderPage> = { charge: '3ds', checkout: 'checkout', local: 'local' };
const OUTCOMES = ['success', 'fail', 'abandon'] as const;
type Outcome = (typeof OUTCOMES)[number];

/** How long a `before-return` page waits for the callback's first attempt before returning anyway. */
const BEFORE_RETURN_CAP_MS = 10_000;

interface Decision {
  status: OrderStatus;
  orderInfo: string;
}

function buttons(): string {
  return `<div><button type="submit" name="outcome" value="success">Pay / complete</button><button type="submit" name="outcome" value="fail">Fail</button><button type="submit" name="outcome" value="abandon">Abandon (cancel)</button></div>`;
}

function summary(order: OrderRecord): string {
  return `<div class="box"><div><b>${escapeHtml(order.orderAmount)} ${escapeHtml(order.orderCurrency)}</b></div><div class="muted">Merchant ${escapeHtml(order.gatewayNo)} · order ${escapeHtml(order.orderNo)} · trade ${escapeHtml(order.tradeNo)}</div></div>`;
}

function renderPage(order: OrderRecord, page: OrderPage, error?: string): string {
  const action = escapeHtml(order.redirectUrl ?? '');
  const errorHtml = error ? `<p class="error">${escapeHtml(error)}</p>` : '';
  if (page === '3ds') {
    const hint =
      order.behaviour === 'challenge-fail'
        ? 'This test card fails authentication whatever you choose.'
        : 'Choose the authentication result.';
    return layout(
      '3-D Secure challenge',
      `<h1>3-D Secure challenge</h1>${summary(order)}<p>Card ${escapeHtml(order.maskCardNo)}. ${hint}</p>${errorHtml}<form method="post" action="${action}">${buttons()}</form>`,
    );
  }
  if (page === 'local') {
    return layout(
      `${order.paymentMethod ?? 'Local'} payment`,
      `<h1>${escapeHtml(order.paymentMethod)} payment</h1>${summary(order)}<p>Sandbox page of the local payment method.</p>${errorHtml}<form method="post" action="${action}">${buttons()}</form>`,
    );
  }
  const cards = TEST_CARDS.map(
    (card) => `<li><code>${card.cardNo}</code> — ${escapeHtml(card.outcome)}</li>`,
  ).join('');
  return layout(
    'Card payment',
    `<h1>Card payment</h1>${summary(order)}${errorHtml}<form method="post" action="${action}">
<label>Card number <input name="cardNo" inputmode="numeric" autocomplete="cc-number" value=""></label>
<label>Expiry month (MM) <input name="cardExpireMonth" size="2" value="12"></label>
<label>Expiry year (YYYY) <input name="cardExpireYear" size="4" value="2030"></label>
<label>Security code <input name="cardSecurityCode" size="4" autocomplete="cc-csc" value=""></label>
${buttons()}</form><div class="muted"><p>Test cards (any future expiry, any 3–4 digit code):</p><ul>${cards}</ul><p>On this page 4000002500003155 counts as a passed challenge.</p></div>`,
  );
}

function renderFinal(order: OrderRecord, note: string): string {
  return layout(
    'Payment finished',
    `<h1>Payment <span class="${escapeHtml(order.orderStatus)}">${escapeHtml(order.orderStatus)}</span></h1>${summary(order)}<p>${escapeHtml(order.orderInfo)}</p><p class="muted">${escapeHtml(note)}</p>`,
  );
}

/** What the card page's success button means for the card typed in (the card table). */
function cardDecision(behaviour: CardBehaviour): Decision {
  switch (behaviour) {
    case 'success':
    case 'challenge':
      return { status: 'success', orderInfo: ORDER_INFO.approved };
    case 'decline':
      return { status: 'fail', orderInfo: ORDER_INFO.declined };
    case 'invalid':
      return { status: 'fail', orderInfo: ORDER_INFO.invalidCard };
    case 'challenge-fail':
      return { status: 'fail', orderInfo: ORDER_INFO.challengeFailed };
    case 'pending':
      return { status: 'pending', orderInfo: ORDER_INFO.pending };
  }
}

function validCardFields(form: URLSearchParams): string | undefined {
  if (!/^\d{13,19}$/.test(form.get('cardNo')?.replace(/\s/g, '') ?? ''))
    return 'Card number must be 13 to 19 digits.';
  if (!/^(0[1-9]|1[0-2])$/.test(form.get('cardExpireMonth') ?? '')) return 'Expiry month must be 01 to 12.';
  if (!/^\d{4}$/.test(form.get('cardExpireYear') ?? '')) return 'Expiry year must be four digits.';
  if (!/^\d{3,4}$/.test(form.get('cardSecurityCode') ?? '')) return 'Security code must be 3 or 4 digits.';
  return undefined;
}

/** Decides the outcome of a form post; a string is a form error to show again. */
function decide(
  order: OrderRecord,
  page: OrderPage,
  outcome: Outcome,
  form: URLSearchParams,
): Decision | string {
  if (outcome === 'abandon') return { status: 'fail', orderInfo: ORDER_INFO.abandoned };
  if (page === '3ds') {
    if (outcome === 'fail' || order.behaviour === 'challenge-fail') {
      return { status: 'fail', orderInfo: ORDER_INFO.challengeFailed };
    }
    return { status: 'success', orderInfo: ORDER_INFO.approved };
  }
  if (page === 'local') {
    return outcome === 'success'
      ? { status: 'success', orderInfo: ORDER_INFO.approved }
      : { status: 'fail', orderInfo: ORDER_INFO.rejectedOnPage };
  }
  const cardNo = form.get('cardNo')?.replace(/\s/g, '') ?? '';
  if (outcome === 'fail') {
    if (/^\d{13,19}$/.test(cardNo)) applyCard(order, cardNo);
    return { status: 'fail', orderInfo: ORDER_INFO.rejectedOnPage };
  }
  const invalid = validCardFields(form);
  if (invalid) return invalid;
  return cardDecision(applyCard(order, cardNo));
}

/** Looks at the number once and keeps only brand, last4 and mask on the order. */
function applyCard(order: OrderRecord, cardNo: string): CardBehaviour {
  const card = summarizeCard(cardNo);
  order.maskCardNo = card.maskCardNo;
  order.brand = card.brand;
  order.last4 = card.last4;
  return card.behaviour;
}

export async function handlePage(
  context: SandboxContext,
  request: IncomingMessage,
  response: ServerResponse,
  page: string,
  tradeNo: string,
  rawBody: string,
): Promise<void> {
  // The outcome buttons are one click from finishing a payment: never inside another site's frame.
  response.setHeader('x-frame-options', 'DENY');
  response.setHeader('content-security-policy', "frame-ancestors 'none'");
  const order = context.store.orders.get(tradeNo);
  if (!order || PAGE_OF_KIND[order.kind] !== page) {
    sendHtml(response, 404, layout('Not found', '<h1>Unknown payment page</h1>'));
    return;
  }
  const finished = order.orderStatus !== 'pending' || order.returnedAt !== undefined;
  if (request.method === 'GET') {
    sendHtml(
      response,
      200,
      finished ? renderFinal(order, 'This payment is already finished.') : renderPage(order, page),
    );
    return;
  }
  if (request.method !== 'POST') {
    sendHtml(response, 405, layout('Method not allowed', '<h1>Use GET or POST</h1>'));
    return;
  }
  // Only the page's own form may post: another site's form knowing the tradeNo would otherwise finish
  // or abandon the shopper's payment. The page may be served under the public URL behind a proxy.
  const publicHost = URL.parse(context.publicUrl())?.host;
  const crossSite = fromAnotherSite(request, publicHost ? [publicHost] : []);
  if (crossSite) {
    sendHtml(response, 403, layout('Refused', '<h1>This page only accepts its own form</h1>'));
    return;
  }
  if (finished) {
    // A repeated post (double click, back button) returns again with the same signed result.
    const location = returnLocation(context, order);
    if (location) redirect(response, location);
    else sendHtml(response, 200, renderFinal(order, 'This payment is already finished.'));
    return;
  }

  const form = new URLSearchParams(rawBody);
  const outcome = OUTCOMES.find((candidate) => candidate === form.get('outcome'));
  if (!outcome) {
    sendHtml(response, 400, renderPage(order, page, 'Choose an outcome: success, fail or abandon.'));
    return;
  }
  const decision = decide(order, page, outcome, form);
  if (typeof decision === 'string') {
    sendHtml(response, 400, renderPage(order, page, decision));
    return;
  }

  const deliveries =
    decision.status === 'pending' ? [] : settle(context, order, decision.status, decision.orderInfo);
  if (decision.status === 'pending') {
    order.orderInfo = decision.orderInfo;
    startDelayedSuccess(context, order);
  }

  const chaos = context.callbacks.chaos;
  if (chaos.timing === 'before-return') {
    await Promise.race([
      context.callbacks.start(deliveries),
      new Promise((resolve) => setTimeout(resolve, BEFORE_RETURN_CAP_MS).unref()),
    ]);
  } else if (chaos.timing === 'after-return') {
    // 'close' also fires when the browser goes away before the 303 was written.
    response.once('close', () => void context.callbacks.start(deliveries));
  } else {
    void context.callbacks.start(deliveries);
  }

  const noReturn = chaos.noReturn === 'always' || (chaos.noReturn === 'abandon' && outcome === 'abandon');
  const location = noReturn ? undefined : returnLocation(context, order);
  if (!location) {
    sendHtml(
      response,
      200,
      renderFinal(
        order,
        noReturn ? 'You can close this window.' : 'The order has no absolute returnUrl to go back to.',
      ),
    );
    return;
  }
  order.returnedAt = new Date(context.clock.now()).toISOString();
  redirect(response, location);
}
