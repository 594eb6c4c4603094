/**
 * What the sandbox serves for the card element (docs/card-element.md): the SDK and the iframe's page,
 * style and script with their content types, framing allowed for any store origin and nothing
 * cross-origin beyond that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(() => sb.close());

const get = (path: string, method = 'GET') => fetch(`${sb.url}${path}`, { method });

describe('element assets', () => {
  it('serves the SDK as JavaScript naming the sandbox origin, loadable by any page', async () => {
    const response = await get('/static/v3/js/AsiabillPayment.min.js');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const script = await response.text();
    expect(script).toContain(`var ORIGIN = ${JSON.stringify(sb.url)};`);
    expect(script).toContain('window.AsiabillPay = AsiabillPay;');
    // Plain script syntax: it compiles as a function body (no modules, no TS).
    expect(() => new Function(script)).not.toThrow();
  });

  it('serves the card page framable by any http(s) origin, with no inline code allowed', async () => {
    const response = await get('/static/v3/element/card.html');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-frame-options')).toBeNull();
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('frame-ancestors http: https:');
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    for (const id of ['cardNo', 'cardExpiry', 'cardCvc']) {
      expect(html).toContain(`<label for="${id}">`);
      expect(html).toContain(`id="${id}"`);
    }
    expect(html).not.toMatch(/<script>|<style>|style="/);
  });

  it('serves the frame script and style; HEAD has no body; other methods and paths are not assets', async () => {
    const script = await get('/static/v3/element/card.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const frameScript = await script.text();
    expect(() => new Function(frameScript)).not.toThrow();
    const style = await get('/static/v3/element/card.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const head = await get('/static/v3/js/AsiabillPayment.min.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const posted = await get('/static/v3/js/AsiabillPayment.min.js', 'POST');
    expect(((await posted.json()) as { code: string }).code).toBe('L0002');
    const other = await get('/static/v3/js/other.js');
    expect(((await other.json()) as { code: string }).code).toBe('L0002');
  });
});
