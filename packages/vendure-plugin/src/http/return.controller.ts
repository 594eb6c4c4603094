import { outcomeFromReturn, SignatureVerificationError, verifyReturn } from '@gatewaykit/core';
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { Logger } from '@vendure/core';
import type { Request, Response } from 'express';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx, ROUTE_PREFIX } from '../constants';
import { PaymentRecorderService } from '../service/payment-recorder.service';
import type { GatewaykitPluginOptions } from '../types';
import { GatewayEndpointService } from './gateway-endpoint.service';

/**
 * Shopper's return from the hosted page / 3-D Secure / local method:
 * `GET /payments/gatewaykit/return/:channelToken/:methodCode?<signed fields>`. A verified return is
 * as trustworthy as the callback, so it records the result the same way (whichever comes first wins,
 * the other is a duplicate), then redirects to the storefront's order page.
 */
@Controller(ROUTE_PREFIX)
export class GatewaykitReturnController {
  constructor(
    private readonly endpoints: GatewayEndpointService,
    private readonly recorder: PaymentRecorderService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  @Get('return/:channelToken/:methodCode')
  async return(
    @Param('channelToken') channelToken: string,
    @Param('methodCode') methodCode: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const endpoint = await this.endpoints.resolve(channelToken, methodCode);
    if ('notFound' in endpoint) {
      res.status(404).type('text/plain').send(endpoint.notFound);
      return;
    }
    const { ctx, methodCode: boundMethod } = endpoint;
    const { signKey } = endpoint.config;
    const query = new URL(req.originalUrl, 'http://x').searchParams;
    let fields: ReturnType<typeof verifyReturn>;
    try {
      fields = verifyReturn({ query, signKey });
    } catch (e) {
      if (!(e instanceof SignatureVerificationError)) throw e;
      Logger.warn(`Rejected return for ${channelToken}/${methodCode}: ${e.message}`, loggerCtx);
      res.status(400).type('text/plain').send('invalid return signature');
      return;
    }
    const outcome = outcomeFromReturn(fields);
    const result = await this.recorder.record(ctx, boundMethod, outcome.orderNo, outcome);
    // Not this channel's, or made through another method: answered exactly like an unknown orderNo.
    if (result.kind === 'unknown-order') {
      res.status(404).type('text/plain').send('unknown order');
      return;
    }
    const target = new URL(
      this.options.storefrontOrderUrl.replace('{code}', encodeURIComponent(result.attempt.orderCode)),
    );
    // The attempt's state after recording: a stale `fail` return after a success still shows success.
    target.searchParams.set('payment', result.kind === 'mismatch' ? 'error' : result.attempt.status);
    res.redirect(303, target.toString());
  }
}
