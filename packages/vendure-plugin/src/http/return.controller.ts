import { handleReturn, sendInboundAnswer } from '@gatewaykit/core';
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAYKIT_PLUGIN_OPTIONS, ROUTE_PREFIX } from '../constants';
import { PaymentRecorderService } from '../service/payment-recorder.service';
import type { GatewaykitPluginOptions } from '../types';
import { GatewayEndpointService } from './gateway-endpoint.service';
import { inboundLogger } from './inbound-logger';

/**
 * Shopper's return from the hosted page / 3-D Secure / local method:
 * `GET /payments/gatewaykit/return/:channelToken/:methodCode?<signed fields>`. Core verifies and
 * records it like a callback (docs/inbound.md); the shopper then goes to the storefront's order page
 * with the attempt's status after it.
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
    const { answer } = await handleReturn({
      query: new URL(req.originalUrl, 'http://return.local').searchParams,
      accounts: [endpoint.config],
      storeFor: () => this.recorder.attemptsOf(endpoint.ctx, endpoint.methodCode),
      logger: inboundLogger,
      storefrontUrl: (attempt, status) => {
        const target = new URL(
          this.options.storefrontOrderUrl.replace('{code}', encodeURIComponent(attempt.row.orderCode)),
        );
        target.searchParams.set('payment', status);
        return target.toString();
      },
    });
    sendInboundAnswer(res, answer);
  }
}
