/**
 * The browser SDK served at `/static/v3/js/AsiabillPayment.min.js` (docs/card-element.md): plain ES2019,
 * no build step, with the documented surface `AsiabillPay(token)` → `elementInit` /
 * `confirmPaymentMethod`. It mounts the card iframe of the sandbox's origin and talks to it only by
 * postMessage: messages go to that origin alone, and only messages from that origin *and* that frame's
 * window are read. The card fields never reach the merchant page.
 *
 * Kept as text (no backticks or template placeholders inside) so the package build ships it as is.
 */
const SDK_BODY = String.raw`
'use strict';
var NS = 'gatewaykit-element';
var FRAME_PATH = '/static/v3/element/card.html';
var INIT_TIMEOUT_MS = 15000;
var CONFIRM_TIMEOUT_MS = 30000;

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value, max) {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

// Only the documented layout options travel to the frame, as plain strings.
var STYLE_KEYS = ['FontSize', 'FontFamily', 'FontWeight', 'Color', 'ContainerBorder', 'ContainerBg', 'ContainerSh'];

function layoutOf(options) {
  var layout = isObject(options.layout) ? options.layout : {};
  var style = isObject(layout.style) ? layout.style : {};
  var input = isObject(style.input) ? style.input : {};
  var picked = {};
  STYLE_KEYS.forEach(function (key) {
    if (typeof input[key] === 'string' || typeof input[key] === 'number') picked[key] = String(input[key]).slice(0, 200);
  });
  return { pageMode: layout.pageMode === 'inner' ? 'inner' : 'block', input: picked };
}

function pixels(value) {
  if (typeof value === 'number' && value > 0) return value + 'px';
  if (typeof value === 'string' && /^\d{1,5}(px)?$/.test(value)) return value.replace('px', '') + 'px';
  return '';
}

/** The element's answer, allow-listed: code and message, and on success the method's id and card. */
function resultOf(raw) {
  if (!isObject(raw)) return { code: 'S0001', message: 'the card form gave no answer' };
  var result = { code: text(String(raw.code), 20), message: text(raw.message, 500) };
  if (result.code === '0' && isObject(raw.data) && typeof raw.data.customerPaymentMethodId === 'string') {
    var card = isObject(raw.data.card) ? raw.data.card : {};
    result.data = {
      customerPaymentMethodId: raw.data.customerPaymentMethodId,
      card: { brand: text(card.brand, 40), last4: text(card.last4, 4) },
    };
  }
  return result;
}

function AsiabillPay(sessionToken) {
  var token = typeof sessionToken === 'string' ? sessionToken : '';
  var options = {};
  var frame = null;
  var initWaiter = null;
  var waiting = {};
  var nextId = 1;
  var listening = false;

  function post(message) {
    if (!frame || !frame.contentWindow) return;
    message.ns = NS;
    frame.contentWindow.postMessage(message, ORIGIN);
  }

  function showError(message) {
    if (options.autoValidate === true) {
      var box = document.getElementById('card-errors');
      if (box) box.textContent = message;
      return;
    }
    window.dispatchEvent(new CustomEvent('getErrorMessage', { detail: { errorMessage: message } }));
  }

  function onMessage(event) {
    // The sandbox's origin and the frame this SDK mounted, both: anything else is ignored.
    if (event.origin !== ORIGIN || !frame || event.source !== frame.contentWindow) return;
    var message = event.data;
    if (!isObject(message) || message.ns !== NS || typeof message.type !== 'string') return;
    if (message.type === 'ready') {
      post({ type: 'init', layout: layoutOf(options), autoValidate: options.autoValidate === true });
    } else if (message.type === 'initialised') {
      if (initWaiter) initWaiter();
    } else if (message.type === 'resize') {
      if (typeof message.height === 'number' && message.height > 0 && message.height < 5000) {
        frame.style.height = Math.ceil(message.height) + 'px';
      }
    } else if (message.type === 'validation') {
      showError(text(message.message, 300));
    } else if (message.type === 'result') {
      var done = waiting[message.id];
      if (done) {
        delete waiting[message.id];
        done(resultOf(message.result));
      }
    }
  }

  function elementInit(step, initOptions) {
    return new Promise(function (resolve, reject) {
      function fail(message) {
        reject({ code: '0001', msg: message });
      }
      if (step !== 'payment_steps') return fail('unknown step: use "payment_steps"');
      if (!isObject(initOptions)) return fail('the element options are required');
      if (!token) return fail('sessionToken is missing');
      var wrapper = document.getElementById(text(initOptions.formWrapperId, 200));
      if (!wrapper) return fail('formWrapperId: no element with that id');
      options = initOptions;
      if (frame && frame.parentNode) frame.parentNode.removeChild(frame);
      frame = document.createElement('iframe');
      frame.id = text(initOptions.frameId, 200) || 'asiabill-card-frame';
      frame.name = frame.id;
      frame.title = 'Secure card payment input';
      frame.setAttribute('scrolling', 'no');
      frame.setAttribute('allowtransparency', 'true');
      frame.style.border = '0';
      frame.style.width = '100%';
      frame.style.height = '150px';
      frame.style.display = 'block';
      frame.style.overflow = 'hidden';
      var layout = isObject(initOptions.layout) ? initOptions.layout : {};
      var maxHeight = pixels(isObject(layout.style) ? layout.style.frameMaxHeight : undefined);
      if (maxHeight) frame.style.maxHeight = maxHeight;
      frame.src = ORIGIN + FRAME_PATH + '?parent=' + encodeURIComponent(window.location.origin);
      var timer = setTimeout(function () {
        if (!initWaiter) return;
        initWaiter = null;
        fail('the card form did not load');
      }, INIT_TIMEOUT_MS);
      initWaiter = function () {
        initWaiter = null;
        clearTimeout(timer);
        resolve({ code: '0000', msg: 'success', data: { paymentMethodList: [] } });
      };
      if (!listening) {
        window.addEventListener('message', onMessage);
        listening = true;
      }
      wrapper.appendChild(frame);
    });
  }

  function confirmPaymentMethod(input) {
    return new Promise(function (resolve) {
      function answer(result) {
        resolve({ data: result });
      }
      if (!frame || initWaiter) {
        return answer({ code: '0001', message: 'the card form is not ready: call elementInit first' });
      }
      var request = isObject(input) ? input : {};
      var detail = isObject(request.trnxDetail) ? request.trnxDetail : {};
      // trnxDetail.card holds empty placeholders: the frame fills in the card, the page never sees it.
      var customerId = text(detail.customerId, 100) || text(options.customerId, 100);
      var id = nextId++;
      var timer = setTimeout(function () {
        if (!waiting[id]) return;
        delete waiting[id];
        answer({ code: 'S0001', message: 'the card form did not answer' });
      }, CONFIRM_TIMEOUT_MS);
      waiting[id] = function (result) {
        clearTimeout(timer);
        answer(result);
      };
      post({
        type: 'confirm',
        id: id,
        sessionToken: text(request.apikey, 512) || token,
        billingDetail: isObject(detail.billingDetail) ? JSON.parse(JSON.stringify(detail.billingDetail)) : undefined,
        customerId: customerId,
      });
    });
  }

  return { elementInit: elementInit, confirmPaymentMethod: confirmPaymentMethod };
}

window.AsiabillPay = AsiabillPay;
`;

/** The SDK for a sandbox reached at `sandboxOrigin` (the origin of its card frame). */
export function sdkScript(sandboxOrigin: string): string {
  return `/* gatewaykit sandbox card element SDK */\n(function () {\nvar ORIGIN = ${JSON.stringify(sandboxOrigin)};\n${SDK_BODY}\n})();\n`;
}
