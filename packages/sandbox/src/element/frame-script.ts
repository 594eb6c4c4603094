/**
 * The card iframe's script (docs/card-element.md), plain ES2019 served at `/static/v3/element/card.js`.
 * It talks only to the parent origin the SDK named in `?parent=`: messages are posted to that origin
 * alone and read only when they come from it and from the parent window. The card fields are sent
 * nowhere but the sandbox's own `POST /V2022-03/element/payment_methods`; the parent only ever hears
 * validation messages and the answer (an id, brand and last4).
 *
 * Kept as text (no backticks or template placeholders inside) so the package build ships it as is.
 */
const FRAME_BODY = String.raw`
'use strict';
var NS = 'gatewaykit-element';
var ENDPOINT = '/V2022-03/element/payment_methods';
var parentOrigin = new URLSearchParams(window.location.search).get('parent') || '';
var form = document.getElementById('card-form');
var number = document.getElementById('cardNo');
var expiry = document.getElementById('cardExpiry');
var cvc = document.getElementById('cardCvc');
var brandBadge = document.getElementById('brand');
var touched = { number: false, expiry: false, cvc: false };
var busy = false;


function send(message) {
  message.ns = NS;
  window.parent.postMessage(message, parentOrigin);
}

function digits(value) {
  return value.replace(/\D/g, '');
}

function brandOf(cardNo) {
  if (/^4/.test(cardNo)) return 'VISA';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(cardNo)) return 'MASTERCARD';
  if (/^3[47]/.test(cardNo)) return 'AMEX';
  if (/^(6011|65|64[4-9])/.test(cardNo)) return 'DISCOVER';
  if (/^35/.test(cardNo)) return 'JCB';
  if (/^62/.test(cardNo)) return 'UNIONPAY';
  return '';
}

function luhn(cardNo) {
  var sum = 0;
  for (var i = 0; i < cardNo.length; i++) {
    var digit = cardNo.charCodeAt(cardNo.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function formatNumber() {
  var value = digits(number.value).slice(0, 19);
  var groups = brandOf(value) === 'AMEX' ? [4, 6, 5] : [4, 4, 4, 4, 3];
  var parts = [];
  var at = 0;
  for (var i = 0; i < groups.length && at < value.length; i++) {
    parts.push(value.slice(at, at + groups[i]));
    at += groups[i];
  }
  number.value = parts.join(' ');
  brandBadge.textContent = brandOf(value);
}

function formatExpiry(event) {
  var value = digits(expiry.value).slice(0, 4);
  if (value.length === 1 && Number(value) > 1) value = '0' + value;
  var deleting = event && event.inputType && event.inputType.indexOf('delete') === 0;
  expiry.value = value.length > 2 || (value.length === 2 && !deleting) ? value.slice(0, 2) + ' / ' + value.slice(2) : value;
}

function formatCvc() {
  cvc.value = digits(cvc.value).slice(0, 4);
}

function expiryParts() {
  var value = digits(expiry.value);
  return { month: value.slice(0, 2), year: value.slice(2, 4) };
}

function numberError() {
  var value = digits(number.value);
  if (value.length === 0) return 'Enter your card number.';
  if (value.length < 13) return 'Your card number is incomplete.';
  if (!luhn(value)) return 'Your card number is invalid.';
  return '';
}

function expiryError() {
  var parts = expiryParts();
  if (parts.month.length === 0) return 'Enter the expiry date (MM/YY).';
  if (parts.year.length < 2) return 'The expiry date is incomplete.';
  var month = Number(parts.month);
  if (month < 1 || month > 12) return 'The expiry month is invalid.';
  var now = new Date();
  var year = 2000 + Number(parts.year);
  if (year * 12 + month - 1 < now.getFullYear() * 12 + now.getMonth()) return 'The card has expired.';
  return '';
}

function cvcError() {
  var value = digits(cvc.value);
  if (value.length === 0) return 'Enter the security code (CVC).';
  if (value.length < 3) return 'The security code is incomplete.';
  return '';
}

var CHECKS = [
  { name: 'number', input: number, error: numberError },
  { name: 'expiry', input: expiry, error: expiryError },
  { name: 'cvc', input: cvc, error: cvcError },
];

/** Marks the fields and tells the parent the first message (empty when all is well). */
function validate(all) {
  var first = '';
  CHECKS.forEach(function (check) {
    if (all) touched[check.name] = true;
    var message = touched[check.name] ? check.error() : '';
    check.input.classList.toggle('invalid', message !== '');
    check.input.setAttribute('aria-invalid', message !== '' ? 'true' : 'false');
    if (message && !first) first = message;
  });
  send({ type: 'validation', message: first });
  return first;
}

var STYLE_PROPERTIES = {
  FontSize: 'font-size',
  FontFamily: 'font-family',
  FontWeight: 'font-weight',
  Color: 'color',
  ContainerBorder: 'border',
  ContainerBg: 'background',
  ContainerSh: 'box-shadow',
};

/** The layout options, each through the CSSOM: a value the browser does not accept is dropped. */
function applyLayout(layout) {
  if (typeof layout !== 'object' || layout === null) return;
  form.className = layout.pageMode === 'inner' ? 'inner' : 'block';
  var input = typeof layout.input === 'object' && layout.input !== null ? layout.input : {};
  // The merchant's style is how the fields look from the start, not a change to animate: the inputs'
  // border and shadow transitions (for focus) are off while it is set, and on again once it is drawn.
  CHECKS.forEach(function (check) {
    check.input.style.transition = 'none';
  });
  Object.keys(STYLE_PROPERTIES).forEach(function (key) {
    var value = input[key];
    if (typeof value !== 'string' || value.length > 200) return;
    // A bare number is a size in pixels (FontSize: '15').
    if (key === 'FontSize' && /^\d+(\.\d+)?$/.test(value)) value = value + 'px';
    CHECKS.forEach(function (check) {
      check.input.style.setProperty(STYLE_PROPERTIES[key], value);
    });
  });
  CHECKS.forEach(function (check) {
    // Reading a computed value applies the new style at once; then the stylesheet's transition is back.
    void getComputedStyle(check.input).borderTopColor;
    check.input.style.transition = '';
  });
}

function reportHeight() {
  // The body's own height: the document's scrollHeight never drops below the frame's current height.
  send({ type: 'resize', height: Math.ceil(document.body.getBoundingClientRect().height) });
}

function cleanAnswer(answer) {
  if (typeof answer !== 'object' || answer === null) return { code: 'S0001', message: 'no answer from the gateway' };
  var result = { code: String(answer.code), message: String(answer.message || '') };
  if (result.code === '0' && answer.data) result.data = answer.data;
  return result;
}

function confirm(message) {
  function reply(result) {
    send({ type: 'result', id: message.id, result: result });
  }
  if (busy) return reply({ code: 'S0001', message: 'a payment method is already being created' });
  var problem = validate(true);
  if (problem) return reply({ code: 'P0001', message: problem });
  var parts = expiryParts();
  var body = JSON.stringify({
    sessionToken: typeof message.sessionToken === 'string' ? message.sessionToken : '',
    billingDetail: message.billingDetail,
    card: {
      cardNo: digits(number.value),
      cardExpireMonth: parts.month,
      cardExpireYear: '20' + parts.year,
      cardSecurityCode: digits(cvc.value),
    },
    customerId: typeof message.customerId === 'string' ? message.customerId : '',
  });
  busy = true;
  form.classList.add('busy');
  fetch(ENDPOINT, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body, credentials: 'omit' })
    .then(function (response) {
      return response.json();
    })
    .then(function (answer) {
      reply(cleanAnswer(answer));
    })
    .catch(function () {
      reply({ code: 'S0001', message: 'the payment gateway could not be reached' });
    })
    .then(function () {
      busy = false;
      form.classList.remove('busy');
    });
}

function onMessage(event) {
  if (event.origin !== parentOrigin || event.source !== window.parent) return;
  var message = event.data;
  if (typeof message !== 'object' || message === null || message.ns !== NS) return;
  if (message.type === 'init') {
    applyLayout(message.layout);
    send({ type: 'initialised' });
    reportHeight();
  } else if (message.type === 'confirm' && typeof message.id === 'number') {
    confirm(message);
  }
}

function start() {
  // Error lines come and go: the frame follows its content's height.
  if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(document.body);
  number.addEventListener('input', function () {
    formatNumber();
    if (touched.number) validate(false);
  });
  expiry.addEventListener('input', function (event) {
    formatExpiry(event);
    if (touched.expiry) validate(false);
  });
  cvc.addEventListener('input', function () {
    formatCvc();
    if (touched.cvc) validate(false);
  });
  CHECKS.forEach(function (check) {
    check.input.addEventListener('blur', function () {
      if (check.input.value !== '') touched[check.name] = true;
      validate(false);
    });
  });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
  });
  window.addEventListener('message', onMessage);
  if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(document.documentElement);
  send({ type: 'ready' });
}

// Without a parent origin to answer to (or outside a frame) the form is useless: nothing is wired up.
if (!/^https?:\/\/[^\/?#\s]+$/.test(parentOrigin) || window.parent === window) {
  document.body.className = 'unusable';
} else {
  start();
}
`;

/** The frame's script. */
export const FRAME_SCRIPT = `/* gatewaykit sandbox card element frame */\n(function () {\n${FRAME_BODY}\n})();\n`;
