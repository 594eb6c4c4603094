/**
 * The dashboard: one server-rendered page of orders (with their refunds and chargebacks), customers,
 * callbacks, requests and faults, with buttons.
 */
import type { CallbackDelivery } from './callbacks.js';
import { TEST_CARDS } from './cards.js';
import type { SandboxContext } from './context.js';
import { clockView } from './control.js';
import { FAULT_KINDS } from './faults.js';
import { escapeHtml, layout, table } from './html.js';
import { refundableAmount } from './refunds.js';
import type { OrderRecord } from './store.js';

const post = (action: string, label: string, fields: Record<string, string> = {}) =>
  `<form class="inline" method="post" action="${escapeHtml(action)}">${Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('')}<button type="submit">${escapeHtml(label)}</button></form>`;

/** Count, the last attempt and the next one: the full list is in GET /_sandbox/callbacks. */
function attemptSummary(delivery: CallbackDelivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return delivery.nextAttemptAt ? `next ${delivery.nextAttemptAt}` : 'not sent';
  const detail = [last.result, last.httpStatus, last.error].filter(Boolean).join(' ');
  const next = delivery.nextAttemptAt ? ` · next ${delivery.nextAttemptAt}` : '';
  return `${delivery.attempts.length} attempt(s), last #${last.attempt}${last.manual ? ' (manual)' : ''}: ${detail}${next}`;
}

const status = (value: string) => `<span class="${escapeHtml(value)}">${escapeHtml(value)}</span>`;

/** An order's refunds and chargebacks, one line each, and what is left to refund. */
function afterPayment(context: SandboxContext, order: OrderRecord): string {
  const lines = context.store
    .refundsOf(order.tradeNo)
    .map(
      (refund) =>
        `refund ${escapeHtml(refund.batchNo)} ${escapeHtml(refund.refundAmount)} ${status(refund.refundStatus)}`,
    );
  for (const chargeback of context.store.chargebacksOf(order.tradeNo)) {
    lines.push(
      `chargeback ${escapeHtml(chargeback.batchNo)} ${escapeHtml(chargeback.amount)}: ${escapeHtml(chargeback.reason)} (reply by ${escapeHtml(chargeback.replyDeadline)})`,
    );
  }
  if (lines.length > 0 && order.orderStatus === 'success')
    lines.push(`<span class="muted">left to refund ${escapeHtml(refundableAmount(context, order))}</span>`);
  return lines.join('<br>');
}

export function renderDashboard(context: SandboxContext, apiUrl: string): string {
  const clock = clockView(context);
  const orders = [...context.store.orders.values()]
    .reverse()
    .map((order) => [
      escapeHtml(order.orderNo),
      escapeHtml(order.tradeNo),
      escapeHtml(order.kind + (order.paymentMethod ? ` (${order.paymentMethod})` : '')),
      `${escapeHtml(order.orderAmount)} ${escapeHtml(order.orderCurrency)}`,
      status(order.orderStatus),
      escapeHtml(order.orderInfo),
      escapeHtml(order.maskCardNo),
      afterPayment(context, order),
      order.orderStatus === 'pending' && order.redirectUrl
        ? `<a href="${escapeHtml(order.redirectUrl)}">page</a>`
        : order.orderStatus === 'success'
          ? post('/_sandbox/chargebacks', 'Raise chargeback', { tradeNo: order.tradeNo })
          : '',
    ]);
  const refunds = [...context.store.refunds.values()]
    .reverse()
    .map((refund) => [
      escapeHtml(refund.batchNo),
      escapeHtml(refund.merTrackNo),
      escapeHtml(refund.orderNo),
      escapeHtml(refund.tradeNo),
      `${escapeHtml(refund.refundAmount)} ${escapeHtml(refund.refundCurrency)}`,
      status(refund.refundStatus),
      escapeHtml(refund.refundStatus === 'fail' ? refund.failReason : refund.refundReason),
      escapeHtml(refund.refundDate),
      refund.refundStatus === 'pending'
        ? `${post(`/_sandbox/refunds/${encodeURIComponent(refund.batchNo)}/settle`, 'Succeed', { status: 'success' })}${post(`/_sandbox/refunds/${encodeURIComponent(refund.batchNo)}/settle`, 'Fail', { status: 'fail' })}`
        : '',
    ]);
  const refundOutcomes = context.store.refundOutcomes.map((rule) => [
    escapeHtml(rule.outcome),
    escapeHtml(rule.reason),
    escapeHtml(rule.tradeNo ?? 'any'),
    escapeHtml(String(rule.remaining)),
  ]);
  const chargebacks = [...context.store.chargebacks]
    .reverse()
    .map((chargeback) => [
      escapeHtml(chargeback.batchNo),
      escapeHtml(chargeback.orderNo),
      escapeHtml(chargeback.tradeNo),
      `${escapeHtml(chargeback.amount)} ${escapeHtml(chargeback.currency)}`,
      escapeHtml(chargeback.reason),
      escapeHtml(chargeback.replyDeadline),
      escapeHtml(chargeback.noticeDate),
    ]);
  const customers = [...context.store.customers.values()]
    .reverse()
    .slice(0, 200)
    .map((customer) => [
      escapeHtml(customer.customerId),
      escapeHtml(`${customer.firstName} ${customer.lastName}`),
      escapeHtml(customer.email),
      escapeHtml(
        [...context.store.paymentMethods.values()]
          .filter((method) => method.customerId === customer.customerId)
          .map((method) => `${method.card.brand} ${method.card.last4}`)
          .join(', '),
      ),
    ]);
  const callbacks = [...context.callbacks.list()]
    .reverse()
    .map((delivery) => [
      escapeHtml(delivery.id),
      escapeHtml(delivery.orderNo),
      escapeHtml(delivery.type),
      status(delivery.state),
      escapeHtml(attemptSummary(delivery)),
      escapeHtml(delivery.chaos ?? ''),
      post(`/_sandbox/callbacks/${encodeURIComponent(delivery.id)}/redeliver`, 'Redeliver'),
    ]);
  const requests = [...context.store.requests]
    .reverse()
    .slice(0, 50)
    .map((entry) => [
      escapeHtml(entry.at),
      escapeHtml(`${entry.method} ${entry.path}`),
      escapeHtml(entry.gatewayNo ?? ''),
      escapeHtml(entry.code ?? String(entry.httpStatus ?? '')),
      escapeHtml(entry.message ?? ''),
      escapeHtml(entry.fault ?? ''),
    ]);
  const faults = context.faults
    .list()
    .map((rule) => [
      escapeHtml(rule.route),
      escapeHtml(rule.kind),
      escapeHtml(String(rule.remaining)),
      escapeHtml(String(rule.hits)),
      post(`/_sandbox/faults/${encodeURIComponent(rule.id)}`, 'Remove', { _method: 'DELETE' }),
    ]);
  const chaos = context.callbacks.chaos;
  return layout(
    'gatewaykit sandbox',
    `<h1>gatewaykit sandbox</h1>
<p>API <code>${escapeHtml(apiUrl)}/V2022-03</code> · merchants ${escapeHtml([...context.merchants.keys()].join(', '))} · virtual time ${escapeHtml(clock.now)} (offset ${clock.offsetMs} ms)</p>
<div>${post('/_sandbox/reset', 'Reset everything')}
<form class="inline" method="post" action="/_sandbox/clock"><input name="advanceMs" size="9" value="600000"><button type="submit">Advance clock (ms)</button></form>
${post('/_sandbox/clock', 'Reset clock offset', { offsetMs: '0' })}</div>
<h2>Orders</h2>${table(['orderNo', 'tradeNo', 'kind', 'amount', 'status', 'orderInfo', 'card', 'refunds · chargebacks', ''], orders)}
<h2>Refunds</h2>${table(['batchNo', 'merTrackNo', 'orderNo', 'tradeNo', 'amount', 'status', 'reason', 'date', ''], refunds)}
<h3>Next refunds</h3>${table(['outcome', 'reason', 'trade', 'remaining'], refundOutcomes)}
<form method="post" action="/_sandbox/refunds/next">outcome <select name="outcome"><option>fail</option><option>pending</option><option>success</option></select> reason <input name="reason" size="24"> trade <input name="tradeNo" size="22" placeholder="any"> times <input name="times" size="6" value="1"> <button type="submit">Set next refund</button></form>
${post('/_sandbox/refunds/next/clear', 'Clear next refunds')}
<h2>Chargebacks</h2>${table(['batchNo', 'orderNo', 'tradeNo', 'amount', 'reason', 'reply deadline', 'notice'], chargebacks)}
<form method="post" action="/_sandbox/chargebacks">tradeNo <input name="tradeNo" size="22"> amount <input name="amount" size="8" placeholder="all"> reason <input name="reason" size="24"> <button type="submit">Raise chargeback</button></form>
<h2>Callbacks</h2>${table(['id', 'orderNo', 'type', 'state', 'attempts', 'chaos', ''], callbacks)}
<h2>Callback chaos</h2><p class="muted">current: ${escapeHtml(JSON.stringify(chaos))}</p>
<form method="post" action="/_sandbox/chaos">copies <input name="copies" size="2" value="${escapeHtml(chaos.copies ?? '')}">
delay ms <input name="delayMs" size="6" value="${escapeHtml(chaos.delayMs ?? '')}">
<label class="inline"><input type="checkbox" name="outOfOrder" value="true"${chaos.outOfOrder ? ' checked' : ''}> stale fail after success</label>
<label class="inline"><input type="checkbox" name="drop" value="true"${chaos.drop ? ' checked' : ''}> drop</label>
timing <select name="timing"><option value="">concurrent</option><option value="before-return"${chaos.timing === 'before-return' ? ' selected' : ''}>before return</option><option value="after-return"${chaos.timing === 'after-return' ? ' selected' : ''}>after return</option></select>
no return <select name="noReturn"><option value="">never</option><option value="abandon"${chaos.noReturn === 'abandon' ? ' selected' : ''}>on abandon</option><option value="always"${chaos.noReturn === 'always' ? ' selected' : ''}>always</option></select>
<button type="submit">Set chaos</button></form>
<h2>Faults</h2>${table(['route', 'kind', 'remaining', 'hits', ''], faults)}
<form method="post" action="/_sandbox/faults">route <input name="route" value="confirmCharge"> kind <select name="kind">${FAULT_KINDS.map((kind) => `<option>${kind}</option>`).join('')}</select> times <input name="times" size="6" value="1"> ms <input name="ms" size="6" value="1000"> <button type="submit">Add fault</button></form>
${post('/_sandbox/faults/clear', 'Clear faults')}
<h2>Customers</h2>${table(['customerId', 'name', 'email', 'payment methods'], customers)}
<h2>Recent requests</h2>${table(['at', 'request', 'gateway-no', 'code', 'message', 'fault'], requests)}
<h2>Test cards</h2>${table(
      ['card number', 'outcome'],
      TEST_CARDS.map((card) => [`<code>${card.cardNo}</code>`, escapeHtml(card.outcome)]),
    )}`,
  );
}
