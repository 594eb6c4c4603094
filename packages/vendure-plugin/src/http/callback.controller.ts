import { handleCallback, sendInboundAnswer } from '@gatewaykit/core';
import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ROUTE_PREFIX } from '../constants';
import { KeptCallbacks } from '../service/kept-callbacks.service';
import { GatewayEndpointService } from './gateway-endpoint.service';
import type { RequestWithRawBody } from './raw-body.middleware';

/**
 * Gateway webhook: `POST /payments/gatewaykit/callback/:channelToken/:methodCode`. Core verifies it
 * with that channel's method credentials, records it (or keeps it for the worker: KeptCallbacks) and
 * decides the answer (docs/inbound.md).
 */
@Controller(ROUTE_PREFIX)
export class GatewaykitCallbackController {
  constructor(
    private readonly endpoints: GatewayEndpointService,
    private readonly kept: KeptCallbacks,
  ) {}

  @Post('callback/:channelToken/:methodCode')
  @HttpCode(200)
  async callback(
    @Param('channelToken') channelToken: string,
    @Param('methodCode') methodCode: string,
    @Req() req: RequestWithRawBody,
    @Res() res: Response,
  ): Promise<void> {
    const handled = await this.endpoints.inbound(channelToken, methodCode, res, (inbound) =>
      handleCallback({
        ...inbound,
        rawBody: req.rawBody,
        headers: req.headers,
        keep: ({ sealed }) => this.kept.keep(channelToken, methodCode, sealed),
      }),
    );
    if (handled) sendInboundAnswer(res, handled.answer);
  }
}
