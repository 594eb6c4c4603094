/**
 * The card element in a real browser (docs/card-element.md): a merchant page on another origin loads the
 * SDK, mounts the card iframe, the shopper types a test card into the iframe, confirmPaymentMethod gives a
 * payment method id and core's client charges it. Beside it the attacks: forged postMessages from a third
 * origin, a page that frames the card form pretending to be the merchant, an expired token.
 */
/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium } from '@gatewaykit/cluster-testing';
import { GatewayClient } from '@gatewaykit/core';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { billingDetail, orderNo } from './helpers.js';

let sb: Sandbox;
let client: GatewayClient;
let browser: Browser;
let shop: { server: Server; origin: string };
let evil: { server: Server; origin: string };

const FRAME_ID = 'card-frame';

/** The SDK's surface as the merchant page sees it (types only: the calls run in the browser). */
interface ElementApi {
  elementInit(step: string, options: unknown): Promise<unknown>;
  confirmPaymentMethod(input: unknown): Promise<unknown>;
}
interface ShopWindow {
  token: string;
  ab: ElementApi;
  AsiabillPay(token: string): ElementApi;
  errorEvents: string[];
}

/** The merchant's checkout page: the SDK from the sandbox, a wrapper, #card-errors, an event log. */
function shopPage(sessionToken: string, withAttacker: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title>
<script src="${client.elementScriptUrl}"></script></head>
<body style="font-family:sans-serif;max-width:480px;margin:24px auto">
<h1>Checkout</h1>
<form id="payment-form"><div id="card-element"></div><div id="card-errors" role="alert"></div></form>
<script>
window.token = ${JSON.stringify(sessionToken)};
window.errorEvents = [];
window.addEventListener('getErrorMessage', function (event) { window.errorEvents.push(event.detail.errorMessage); });
</script>
${withAttacker ? `<iframe id="ad" src="${evil.origin}/forger"></iframe>` : ''}
</body></html>`;
}

/** A third origin: spams the merchant page with messages shaped like the frame's, and pokes the card frame. */
const FORGER = `<!doctype html><html><body><script>
var ns = 'gatewaykit-element';
var tick = 0;
setInterval(function () {
  tick++;
  for (var id = 1; id <= 5; id++) {
    parent.postMessage({ ns: ns, type: 'result', id: id, result: { code: '0', message: 'success',
      data: { customerPaymentMethodId: 'pm_forged', card: { brand: 'Visa', last4: '0000' } } } }, '*');
  }
  parent.postMessage({ ns: ns, type: 'validation', message: 'forged message' }, '*');
  parent.postMessage({ ns: ns, type: 'initialised' }, '*');
  parent.postMessage({ ns: ns, type: 'resize', height: 4000 }, '*');
  // The card frame is a sibling: ask it to create a method and to restyle itself.
  for (var i = 0; i < parent.frames.length; i++) {
    try {
      parent.frames[i].postMessage({ ns: ns, type: 'confirm', id: 900 + tick, sessionToken: 'st_x' }, '*');
      parent.frames[i].postMessage({ ns: ns, type: 'init', layout: { input: { Color: 'rgb(255, 0, 0)' } } }, '*');
    } catch (e) {}
  }
}, 5);
</script></body></html>`;

/** A third-origin page framing the card form with the merchant's origin as `parent`, listening for anything. */
function impostorPage(claimed: string): string {
  return `<!doctype html><html><body><script>
window.heard = [];
window.addEventListener('message', function (event) { window.heard.push(event.data); });
</script>
<iframe id="stolen" src="${sb.url}/static/v3/element/card.html?parent=${encodeURIComponent(claimed)}"></iframe>
</body></html>`;
}

async function serve(
  handler: (path: string, query: URLSearchParams) => string,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    const html = handler(url.pathname, url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
  // Same host, other ports: three distinct origins (merchant, attacker, sandbox).
  shop = await serve((_path, query) => shopPage(query.get('token') ?? '', query.get('attacker') === '1'));
  evil = await serve((path, query) =>
    path === '/forger' ? FORGER : impostorPage(query.get('claim') === 'self' ? evil.origin : shop.origin),
  );
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shop?.server.close(resolve));
  await new Promise((resolve) => evil?.server.close(resolve));
  await client?.close();
  await sb?.close();
});

const expiryYear = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0');

interface Mounted {
  page: Page;
  frame: FrameLocator;
  init: unknown;
}

async function mount(
  options: { autoValidate?: boolean; layout?: unknown; attacker?: boolean; token?: string } = {},
) {
  const token = options.token ?? (await client.sessionTokens.create()).sessionToken;
  const page = await browser.newPage();
  await page.goto(
    `${shop.origin}/checkout?token=${encodeURIComponent(token)}&attacker=${options.attacker ? 1 : 0}`,
  );
  const init = await page.evaluate(
    ({ frameId, autoValidate, layout }) => {
      const w = window as unknown as ShopWindow;
      w.ab = w.AsiabillPay(w.token);
      return w.ab
        .elementInit('payment_steps', {
          formId: 'payment-form',
          formWrapperId: 'card-element',
          frameId,
          customerId: '',
          autoValidate,
          layout: layout ?? { pageMode: 'block', style: { frameMaxHeight: '300' } },
        })
        .then(
          (ok: unknown) => ({ ok }),
          (error: unknown) => ({ error }),
        );
    },
    { frameId: FRAME_ID, autoValidate: options.autoValidate ?? true, layout: options.layout },
  );
  return { page, frame: page.frameLocator(`#${FRAME_ID}`), init } satisfies Mounted;
}

async function typeCard(frame: FrameLocator, cardNo: string, expiry = `12${expiryYear}`, cvc = '123') {
  await frame.locator('#cardNo').fill(cardNo);
  await frame.locator('#cardExpiry').fill(expiry);
  await frame.locator('#cardCvc').fill(cvc);
  await frame.locator('#cardCvc').blur();
}

interface ConfirmResult {
  data: {
    code: string;
    message: string;
    data?: { customerPaymentMethodId: string; card: { brand: string; last4: string } };
  };
}

function confirm(page: Page): Promise<ConfirmResult> {
  return page.evaluate((billing) => {
    const w = window as unknown as ShopWindow;
    return w.ab.confirmPaymentMethod({
      apikey: w.token,
      trnxDetail: {
        billingDetail: billing,
        card: { cardNo: '', cardExpireMonth: '', cardExpireYear: '', cardSecurityCode: '', issuingBank: '' },
        customerId: '',
      },
    });
  }, billingDetail) as Promise<ConfirmResult>;
}

function chargeWith(customerPaymentMethodId: string) {
  return client.charges.confirm({
    orderNo: orderNo('B'),
    orderAmount: '20.00',
    orderCurrency: 'USD',
    customerIp: '203.0.113.10',
    returnUrl: `${shop.origin}/return`,
    webSite: shop.origin,
    customerPaymentMethodId,
  });
}

describe('the card element in Chromium', { timeout: 60_000 }, () => {
  it('mounts a labelled card form in the wrapper and creates a method that charges (4242…)', async () => {
    const { page, frame, init } = await mount();
    try {
      expect(init).toEqual({ ok: { code: '0000', msg: 'success', data: { paymentMethodList: [] } } });
      const iframe = page.locator(`#card-element > iframe#${FRAME_ID}`);
      await expect(iframe.getAttribute('src')).resolves.toBe(
        `${sb.url}/static/v3/element/card.html?parent=${encodeURIComponent(shop.origin)}`,
      );
      await expect(frame.locator('label[for=cardNo]').textContent()).resolves.toBe('Card number');
      await expect(frame.locator('label[for=cardExpiry]').textContent()).resolves.toBe('Expiry (MM/YY)');
      await expect(frame.locator('label[for=cardCvc]').textContent()).resolves.toBe('CVC');
      await typeCard(frame, '4242424242424242');
      await expect(frame.locator('#cardNo').inputValue()).resolves.toBe('4242 4242 4242 4242');
      await expect(frame.locator('#cardExpiry').inputValue()).resolves.toBe(`12 / ${expiryYear}`);
      await expect(frame.locator('#brand').textContent()).resolves.toBe('VISA');
      // The merchant page cannot read the card fields: the frame is another origin.
      const peek = await page.evaluate((id) => {
        try {
          return (
            (document.getElementById(id) as HTMLIFrameElement).contentDocument?.body.innerHTML ?? 'no access'
          );
        } catch {
          return 'no access';
        }
      }, FRAME_ID);
      expect(peek).toBe('no access');
      // The frame is as tall as its form: no gap under the fields, nothing cut off.
      const formHeight = await frame.locator('body').evaluate((body) => body.getBoundingClientRect().height);
      await expect
        .poll(() => iframe.evaluate((element) => element.getBoundingClientRect().height))
        .toBe(Math.ceil(formHeight));

      const result = await confirm(page);
      expect(result.data).toEqual({
        code: '0',
        message: 'success',
        data: {
          customerPaymentMethodId: expect.stringMatching(/^pm_\d{19}$/),
          card: { brand: 'Visa', last4: '4242' },
        },
      });
      const charged = await chargeWith(result.data.data!.customerPaymentMethodId);
      expect(charged).toMatchObject({ orderStatus: 'success', redirectUrl: '' });
      const logged = JSON.stringify(sb.requests());
      expect(logged).not.toContain('4242424242424242');
    } finally {
      await page.close();
    }
  });

  it('records the decline card on the method (4000000000009995) and the 3-D Secure card redirects (4000002500003155)', async () => {
    const { page, frame } = await mount();
    try {
      await typeCard(frame, '4000000000009995');
      const declined = await confirm(page);
      expect(declined.data.code).toBe('0');
      await expect(chargeWith(declined.data.data!.customerPaymentMethodId)).resolves.toMatchObject({
        orderStatus: 'fail',
      });
      await typeCard(frame, '4000002500003155');
      const challenge = await confirm(page);
      expect(challenge.data.code).toBe('0');
      expect(challenge.data.data!.customerPaymentMethodId).not.toBe(
        declined.data.data!.customerPaymentMethodId,
      );
      const pending = await chargeWith(challenge.data.data!.customerPaymentMethodId);
      expect(pending.orderStatus).toBe('pending');
      expect(pending.redirectUrl).toMatch(new RegExp(`^${sb.url}/pay/3ds/`));
    } finally {
      await page.close();
    }
  });

  it('validates in the frame: #card-errors with autoValidate, getErrorMessage events without', async () => {
    const auto = await mount({ autoValidate: true });
    try {
      await typeCard(auto.frame, '4242424242424241');
      await auto.page.waitForFunction(() => document.getElementById('card-errors')?.textContent !== '');
      await expect(auto.page.locator('#card-errors').textContent()).resolves.toBe(
        'Your card number is invalid.',
      );
      await expect(auto.frame.locator('#cardNo').getAttribute('aria-invalid')).resolves.toBe('true');
      const refused = await confirm(auto.page);
      expect(refused.data).toEqual({ code: 'P0001', message: 'Your card number is invalid.' });
      await auto.frame.locator('#cardNo').fill('4242424242424242');
      await auto.page.waitForFunction(() => document.getElementById('card-errors')?.textContent === '');
    } finally {
      await auto.page.close();
    }
    const events = await mount({ autoValidate: false });
    try {
      await typeCard(events.frame, '4242424242424242', '0120');
      await events.page.waitForFunction(() => (window as unknown as ShopWindow).errorEvents.length > 0);
      const seen = await events.page.evaluate(() => (window as unknown as ShopWindow).errorEvents);
      expect(seen).toContain('The card has expired.');
      await expect(events.page.locator('#card-errors').textContent()).resolves.toBe('');
      expect((await confirm(events.page)).data).toEqual({ code: 'P0001', message: 'The card has expired.' });
    } finally {
      await events.page.close();
    }
  });

  it('applies the layout options to the inputs (inner mode, font, colour, border, background, shadow)', async () => {
    const { page, frame } = await mount({
      layout: {
        pageMode: 'inner',
        style: {
          frameMaxHeight: 200,
          input: {
            FontSize: '18',
            FontFamily: 'monospace',
            FontWeight: '700',
            Color: 'rgb(10, 20, 30)',
            ContainerBorder: '2px solid rgb(0, 128, 0)',
            ContainerBg: 'rgb(250, 250, 240)',
            ContainerSh: 'none',
          },
        },
      },
    });
    try {
      const style = await frame.locator('#cardCvc').evaluate((input) => {
        const computed = getComputedStyle(input);
        return {
          fontSize: computed.fontSize,
          fontWeight: computed.fontWeight,
          fontFamily: computed.fontFamily,
          color: computed.color,
          border: `${computed.borderTopWidth} ${computed.borderTopColor}`,
          background: computed.backgroundColor,
          shadow: computed.boxShadow,
          mode: document.getElementById('card-form')?.className,
        };
      });
      expect(style).toEqual({
        fontSize: '18px',
        fontWeight: '700',
        fontFamily: 'monospace',
        color: 'rgb(10, 20, 30)',
        border: '2px rgb(0, 128, 0)',
        background: 'rgb(250, 250, 240)',
        shadow: 'none',
        mode: 'inner',
      });
      await expect(page.locator(`#${FRAME_ID}`).evaluate((frame) => frame.style.maxHeight)).resolves.toBe(
        '200px',
      );
    } finally {
      await page.close();
    }
  });

  it('a layout reaching fields already drawn takes effect at once, not animated from the default look', async () => {
    const { page, frame } = await mount();
    try {
      const cvc = frame.locator('#cardCvc');
      // The fields are drawn with the default look; then a layout arrives (on a slow machine the first
      // one can arrive after the first paint too).
      await cvc.evaluate((input) => getComputedStyle(input).borderTopColor);
      await page.evaluate((frameId) => {
        const target = document.getElementById(frameId) as HTMLIFrameElement;
        target.contentWindow?.postMessage(
          {
            ns: 'gatewaykit-element',
            type: 'init',
            layout: {
              pageMode: 'block',
              input: { ContainerBorder: '2px solid rgb(0, 128, 0)', ContainerSh: 'none' },
            },
          },
          new URL(target.src).origin,
        );
      }, FRAME_ID);
      await expect.poll(() => cvc.evaluate((input) => getComputedStyle(input).borderTopWidth)).toBe('2px');
      const look = await cvc.evaluate((input) => ({
        border: getComputedStyle(input).borderTopColor,
        shadow: getComputedStyle(input).boxShadow,
        running: input.getAnimations().length,
      }));
      expect(look).toEqual({ border: 'rgb(0, 128, 0)', shadow: 'none', running: 0 });
    } finally {
      await page.close();
    }
  });
});

describe('attacks on the element', { timeout: 60_000 }, () => {
  it('ignores forged messages from a third origin and never answers the forger', async () => {
    const before = sb.requests().filter((entry) => entry.operation === 'elementPaymentMethod').length;
    const { page, frame, init } = await mount({ attacker: true });
    try {
      expect(init).toMatchObject({ ok: { code: '0000' } });
      await page.frameLocator('#ad').locator('body').waitFor({ state: 'attached' });
      await typeCard(frame, '4242424242424242');
      const result = await confirm(page);
      expect(result.data.code).toBe('0');
      expect(result.data.data!.customerPaymentMethodId).not.toBe('pm_forged');
      expect(result.data.data!.customerPaymentMethodId).toMatch(/^pm_\d{19}$/);
      await expect(page.locator('#card-errors').textContent()).resolves.not.toContain('forged');
      const height = await page
        .locator(`#${FRAME_ID}`)
        .evaluate((element) => element.getBoundingClientRect().height);
      expect(height).toBeLessThan(1000);
      // The forger's confirm and init messages to the card frame did nothing: one method was created
      // (the honest one) and the inputs kept their colour.
      const after = sb.requests().filter((entry) => entry.operation === 'elementPaymentMethod').length;
      expect(after - before).toBe(1);
      await expect(
        frame.locator('#cardNo').evaluate((input) => getComputedStyle(input).color),
      ).resolves.not.toBe('rgb(255, 0, 0)');
    } finally {
      await page.close();
    }
  });

  it('the card form framed by another page that names the merchant as parent tells that page nothing', async () => {
    const hears = async (claim: string) => {
      const page = await browser.newPage();
      try {
        await page.goto(`${evil.origin}/impostor?claim=${claim}`);
        const stolen = page.frameLocator('#stolen');
        await stolen.locator('#cardNo').waitFor();
        await stolen.locator('#cardNo').fill('4242424242424241');
        await stolen.locator('#cardNo').blur();
        await page.waitForTimeout(300);
        return await page.evaluate(() => (window as unknown as { heard: { type?: string }[] }).heard);
      } finally {
        await page.close();
      }
    };
    // Control: a page that names itself as parent hears the frame (ready, validation)...
    const own = await hears('self');
    expect(own.map((message) => message.type)).toEqual(expect.arrayContaining(['ready', 'validation']));
    // ...a page claiming to be the merchant hears nothing: the browser drops messages for another origin.
    await expect(hears('merchant')).resolves.toEqual([]);
  });

  it('an expired token: elementInit mounts, confirmPaymentMethod answers the documented failure shape', async () => {
    const { sessionToken } = await client.sessionTokens.create();
    sb.clock.advance(31 * 60_000);
    try {
      const { page, frame, init } = await mount({ token: sessionToken });
      try {
        expect(init).toMatchObject({ ok: { code: '0000' } });
        await typeCard(frame, '4242424242424242');
        const result = await confirm(page);
        expect(result).toEqual({
          data: { code: 'P0002', message: 'param is null or incorrect: sessionToken is unknown or expired' },
        });
      } finally {
        await page.close();
      }
    } finally {
      sb.clock.setOffset(0);
    }
  });

  it('elementInit rejects with code 0001 without a wrapper or a token', async () => {
    const { page } = await mount();
    try {
      const outcomes = await page.evaluate(() => {
        const w = window as unknown as ShopWindow;
        const settle = (promise: Promise<unknown>) =>
          promise.then(
            (ok) => ({ ok }),
            (error) => ({ error }),
          );
        return Promise.all([
          settle(
            w.AsiabillPay(w.token).elementInit('payment_steps', { formWrapperId: 'missing', frameId: 'x' }),
          ),
          settle(
            w.AsiabillPay('').elementInit('payment_steps', { formWrapperId: 'card-element', frameId: 'y' }),
          ),
          w.AsiabillPay(w.token).confirmPaymentMethod({ apikey: w.token, trnxDetail: {} }),
        ]);
      });
      expect(outcomes[0]).toEqual({ error: { code: '0001', msg: 'formWrapperId: no element with that id' } });
      expect(outcomes[1]).toEqual({ error: { code: '0001', msg: 'sessionToken is missing' } });
      expect(outcomes[2]).toEqual({
        data: { code: '0001', message: 'the card form is not ready: call elementInit first' },
      });
    } finally {
      await page.close();
    }
  });
});
