import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@vendure/core';
import { type MethodConfig, MethodConfigError } from '../config/method-args';
import { MethodConfigService } from '../service/method-config.service';
import { ChannelContextService } from './channel-context.service';

export type GatewayEndpoint =
  /** `methodCode` is the method whose credentials verify the request: only its attempts may change. */
  { ctx: RequestContext; config: MethodConfig; methodCode: string } | { notFound: string };

/**
 * What a callback/return URL `/:channelToken/:methodCode` names: the order's own channel and that
 * channel's payment method credentials, or why it names nothing (answered 404 by the controllers).
 */
@Injectable()
export class GatewayEndpointService {
  constructor(
    private readonly channels: ChannelContextService,
    private readonly methods: MethodConfigService,
  ) {}

  async resolve(channelToken: string, methodCode: string): Promise<GatewayEndpoint> {
    const ctx = await this.channels.forToken(channelToken);
    if (!ctx) return { notFound: 'unknown channel' };
    try {
      const resolved = await this.methods.resolve(ctx, methodCode);
      return { ctx, config: resolved.config, methodCode: resolved.method.code };
    } catch (e) {
      if (!(e instanceof MethodConfigError)) throw e;
      return { notFound: 'unknown payment method' };
    }
  }
}
