import {
  type Channel,
  type ChannelService,
  type ID,
  idsAreEqual,
  Order,
  type RequestContext,
  type TransactionalConnection,
} from '@vendure/core';

/** What the shopper is told when the active order is another channel's. */
export const OTHER_CHANNEL_MESSAGE =
  "The active order belongs to another channel: pay it through its own channel (that channel's vendure-token)";

/**
 * Whether a payment for the order may start in the request's channel. Vendure puts every order in the
 * default channel besides its own, and a session's active order follows it to the default channel's
 * requests; a payment started there would charge another channel's order through the default channel's
 * method and merchant account (docs/SECURITY.md, the Vendure plugin's README). So the order must be in the request's channel and
 * in no other channel but the default one.
 */
export function paidInItsChannel(
  order: { channels: Pick<Channel, 'id'>[] },
  channelId: ID,
  defaultId: ID,
): boolean {
  const own = order.channels.filter((channel) => !idsAreEqual(channel.id, defaultId));
  const inRequestChannel = order.channels.some((channel) => idsAreEqual(channel.id, channelId));
  return inRequestChannel && own.every((channel) => idsAreEqual(channel.id, channelId));
}

/** paidInItsChannel for the order `orderId`, read with its channels; false when it cannot be read. */
export async function orderInRequestChannel(
  connection: TransactionalConnection,
  channels: Pick<ChannelService, 'getDefaultChannel'>,
  ctx: RequestContext,
  orderId: ID,
): Promise<boolean> {
  const order = await connection
    .getRepository(ctx, Order)
    .findOne({ where: { id: orderId }, relations: { channels: true } });
  if (!order) return false;
  const defaultChannel = await channels.getDefaultChannel(ctx);
  return paidInItsChannel(order, ctx.channelId, defaultChannel.id);
}
