import { handleReturn, sendInboundAnswer } from '@gatewaykit/core';
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAYKIT_PLUGIN_OPTIONS, ROUTE_PREFIX } from '../constants';
import { isUnappliedCharge, NOT_APPLIED_STATUS } from '../service/unapplied-charge';
import type { GatewaykitPluginOptions } from '../types';
import { GatewayEndpointService } from './gateway-endpoint.service';

/**
 * Shopper's return from the hosted page / 3-D Secure / local method:
 * `GET /payments/gatewaykit/return/:channelToken/:methodCode?<signed fields>`. Core verifies it,
 * confirms it with the gateway's record of its trade and records it like a callback
 * (docs/inbound.md); the shopper then goes to the storefront's order page with the attempt's status
 * after it, or `not_applied` for a charge the order could not take (docs/storefront-return-page.md).
 */
@Controller(ROUTE_PREFIX)
export class GatewaykitReturnController {
  constructor(
    private readonly endpoints: GatewayEndpointService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  @Get('return/:channelToken/:methodCode')
  async return(
    @Param('channelToken') channelToken: string,
    @Param('methodCode') methodCode: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const handled = await this.endpoints.inbound(
      channelToken,
      methodCode,
      res,
      (inbound) =>
        handleReturn({
          ...inbound,
          query: new URL(req.originalUrl, 'http://return.local').searchParams,
          storefrontUrl: (attempt, status) => {
            const target = new URL(
              this.options.storefrontOrderUrl.replace('{code}', encodeURIComponent(attempt.row.orderCode)),
            );
            // A charge the order could not take is not a paid order: the page must not wait for one.
            target.searchParams.set('payment', isUnappliedCharge(attempt.row) ? NOT_APPLIED_STATUS : status);
            return target.toString();
          },
        }),
      'return',
    );
    if (handled) sendInboundAnswer(res, handled.answer);
  }
}
