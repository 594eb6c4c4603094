import { handleCallback, sendInboundAnswer } from '@gatewaykit/core';
import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ROUTE_PREFIX } from '../constants';
import { PaymentRecorderService } from '../service/payment-recorder.service';
import { GatewayEndpointService } from './gateway-endpoint.service';
import { inboundLogger } from './inbound-logger';
import type { RequestWithRawBody } from './raw-body.middleware';

/**
 * Gateway webhook: `POST /payments/gatewaykit/callback/:channelToken/:methodCode`. Core verifies it
 * with that channel's method credentials, records it and decides the answer (docs/inbound.md).
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
    const { answer } = await handleCallback({
      rawBody: req.rawBody,
      headers: req.headers,
      accounts: [endpoint.config],
      storeFor: () => this.recorder.attemptsOf(endpoint.ctx, endpoint.methodCode),
      logger: inboundLogger,
    });
    sendInboundAnswer(res, answer);
  }
}
