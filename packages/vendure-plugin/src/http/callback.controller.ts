import {
  isGatewayError,
  outcomeFromCallback,
  SignatureVerificationError,
  verifyCallback,
} from '@gatewaykit/core';
import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { Logger } from '@vendure/core';
import type { Response } from 'express';
import { loggerCtx, ROUTE_PREFIX } from '../constants';
import { PaymentRecorderService } from '../service/payment-recorder.service';
import { GatewayEndpointService } from './gateway-endpoint.service';
import type { RequestWithRawBody } from './raw-body.middleware';

/**
 * Gateway webhook: `POST /payments/gatewaykit/callback/:channelToken/:methodCode`.
 * Verified with the credentials of that channel's payment method. Answers the plain body `success`
 * only after the result is committed (or when it is a known duplicate); anything else makes the
 * gateway retry.
 */
@Controller(ROUTE_PREFIX)
export class GatewaykitCallbackController {
  constructor(
    private readonly endpoints: GatewayEndpointService,
    private readonly recorder: PaymentRecorderService,
  ) {}

  @Post('callback/:channelToken/:methodCode')
  @HttpCode(200)
  async callback(
    @Param('channelToken') channelToken: string,
    @Param('methodCode') methodCode: string,
    @Req() req: RequestWithRawBody,
    @Res() res: Response,
  ): Promise<void> {
    const endpoint = await this.endpoints.resolve(channelToken, methodCode);
    if ('notFound' in endpoint) {
      res.status(404).type('text/plain').send(endpoint.notFound);
      return;
    }
    const { ctx, methodCode: boundMethod } = endpoint;
    const { signKey, gatewayNo } = endpoint.config;
    const rawBody = req.rawBody ?? Buffer.alloc(0);
    let event: ReturnType<typeof verifyCallback>;
    try {
      event = verifyCallback({ rawBody, headers: req.headers, gatewayNo, signKey });
    } catch (e) {
      if (e instanceof SignatureVerificationError || isGatewayError(e)) {
        Logger.warn(
          `Rejected callback for ${channelToken}/${methodCode}: ${(e as Error).message}`,
          loggerCtx,
        );
        res.status(401).type('text/plain').send('invalid signature');
        return;
      }
      throw e;
    }
    const outcome = outcomeFromCallback(event);
    if (!outcome) {
      // Refund and chargeback notices: tell the admin on the order; nothing changes automatically.
      const d = event.data as Record<string, unknown>;
      const orderNo = typeof d.orderNo === 'string' ? d.orderNo : '';
      const text =
        `Gateway notice ${event.type} for trade ${String(d.tradeNo ?? '?')}: ` +
        `${String(d.amount ?? d.orderAmount ?? '?')} ${String(d.currency ?? d.orderCurrency ?? '')}` +
        (d.reason ? ` (${String(d.reason)})` : '') +
        '. Settle or review the matching refund in Vendure.';
      const known = orderNo ? await this.recorder.noteEvent(ctx, boundMethod, orderNo, text) : false;
      Logger.info(
        `Callback ${event.type} for ${orderNo || '?'} acknowledged (order known: ${known})`,
        loggerCtx,
      );
      res.type('text/plain').send('success');
      return;
    }
    try {
      const result = await this.recorder.record(ctx, boundMethod, outcome.orderNo, outcome);
      // Not this channel's, or made through another method: answered exactly like an unknown orderNo.
      if (result.kind === 'unknown-order') {
        res.status(404).type('text/plain').send('unknown order');
        return;
      }
      // Recorded, duplicate, or a mismatch already logged with an order note: stop the retries.
      res.type('text/plain').send('success');
    } catch (e) {
      Logger.error(
        `Callback for ${outcome.orderNo} failed: ${(e as Error).message}`,
        loggerCtx,
        (e as Error).stack,
      );
      res.status(500).type('text/plain').send('error');
    }
  }
}
