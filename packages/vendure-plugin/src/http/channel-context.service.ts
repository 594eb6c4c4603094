import { Injectable } from '@nestjs/common';
import { Channel, ChannelService, RequestContext, RequestContextService } from '@vendure/core';

/**
 * Builds the admin RequestContext of the channel named in a callback/return URL. The channel token
 * in the URL is the order's own channel (Vendure 3.7.3 checks payments against it); there is no
 * fallback to the default channel.
 */
@Injectable()
export class ChannelContextService {
  constructor(
    private readonly channelService: ChannelService,
    private readonly requestContextService: RequestContextService,
  ) {}

  async forToken(token: string): Promise<RequestContext | undefined> {
    let channel: Channel;
    try {
      channel = await this.channelService.getChannelFromToken(token);
    } catch {
      return undefined;
    }
    if (channel.token !== token) return undefined;
    return this.requestContextService.create({ apiType: 'admin', channelOrToken: channel });
  }
}
