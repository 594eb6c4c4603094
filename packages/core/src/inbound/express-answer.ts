import type { InboundAnswer } from './notifications.js';

/** The part of an Express response (Medusa's and Vendure's HTTP layers) an inbound answer needs. */
export interface ExpressLikeResponse {
  status(code: number): ExpressLikeResponse;
  type(contentType: string): ExpressLikeResponse;
  send(body: string): unknown;
  redirect(status: number, url: string): void;
}

/** Writes core's answer: a redirect for a return, else the gateway's plain-text protocol body. */
export function sendInboundAnswer(res: ExpressLikeResponse, answer: InboundAnswer): void {
  if (answer.location) res.redirect(answer.status, answer.location);
  else res.status(answer.status).type('text/plain').send(answer.body);
}
