/**
 * The card element's HTTP surface (docs/card-element.md): the browser SDK, the card iframe's page, style
 * and script, and the iframe's `POST /V2022-03/element/payment_methods`. The page may be framed by any
 * http(s) store origin; nothing is offered cross-origin beyond what a `<script>` or `<iframe>` loads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';
import { ELEMENT_SCRIPT_PATH, ERROR_CODES } from '../core.js';
import {
  FRAME_PAGE,
  FRAME_PAGE_PATH,
  FRAME_SCRIPT_PATH,
  FRAME_STYLE,
  FRAME_STYLE_PATH,
} from './frame-page.js';
import { FRAME_SCRIPT } from './frame-script.js';
import { createElementMethod, ELEMENT_METHODS_PATH, type ElementAnswer } from './method-endpoint.js';
import { sdkScript } from './sdk-script.js';

const FRAME_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  // Any store may frame the card fields; the page itself frames nothing.
  'frame-ancestors http: https:',
].join('; ');

interface Asset {
  type: string;
  body: (context: SandboxContext) => string;
  headers?: Record<string, string>;
}

const ASSETS: ReadonlyMap<string, Asset> = new Map<string, Asset>([
  [
    ELEMENT_SCRIPT_PATH,
    {
      type: 'text/javascript; charset=utf-8',
      body: (context) => sdkScript(new URL(context.publicUrl()).origin),
    },
  ],
  [
    FRAME_PAGE_PATH,
    {
      type: 'text/html; charset=utf-8',
      body: () => FRAME_PAGE,
      headers: { 'content-security-policy': FRAME_CSP },
    },
  ],
  [FRAME_SCRIPT_PATH, { type: 'text/javascript; charset=utf-8', body: () => FRAME_SCRIPT }],
  [FRAME_STYLE_PATH, { type: 'text/css; charset=utf-8', body: () => FRAME_STYLE }],
]);

function sendAsset(request: IncomingMessage, response: ServerResponse, asset: Asset, body: string): void {
  response.writeHead(200, {
    'content-type': asset.type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...asset.headers,
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function sendAnswer(response: ServerResponse, answer: ElementAnswer): void {
  const body = JSON.stringify(answer);
  response.writeHead(200, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  response.end(body);
}

/** True when `path` is the element's and the request was answered. */
export function handleElementRequest(
  context: SandboxContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  rawBody: string,
  record: (answer: ElementAnswer) => void,
): boolean {
  const method = request.method ?? 'GET';
  if (path === ELEMENT_METHODS_PATH) {
    const answer =
      method === 'POST'
        ? createElementMethod(context, request.headers, rawBody)
        : { code: ERROR_CODES.URL, message: `api url error: use POST for ${ELEMENT_METHODS_PATH}` };
    record(answer);
    sendAnswer(response, answer);
    return true;
  }
  const asset = ASSETS.get(path);
  if (!asset || (method !== 'GET' && method !== 'HEAD')) return false;
  sendAsset(request, response, asset, asset.body(context));
  return true;
}
