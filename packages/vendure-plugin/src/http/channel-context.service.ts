import { Injectable } from '@nestjs/common';
import {
  Channel,
  ChannelService,
  type ID,
  RequestContext,
  RequestContextService,
  TransactionalConnection,
} from '@vendure/core';

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
    private readonly connection: TransactionalConnection,
  ) {}

  /** The admin context of the channel an attempt was made in (reconciliation has no URL to read it from). */
  async forChannelId(id: ID): Promise<RequestContext | undefined> {
    const channel = await this.connection.rawConnection.getRepository(Channel).findOne({ where: { id } });
    // The channel service's copy carries the zones a context needs (tax, shipping).
    return channel ? this.forToken(channel.token) : undefined;
  }

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
