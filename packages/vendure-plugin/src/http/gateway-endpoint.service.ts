import type { GatewayClient, InboundLogger, TransactionRecord } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { type RequestContext, TransactionalConnection } from '@vendure/core';
import type { Response } from 'express';
import { type MethodConfig, MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS } from '../constants';
import { MethodConfigService } from '../service/method-config.service';
import { onOneConnection } from '../service/one-connection';
import type { OrderAttempts } from '../service/order-attempts';
import { PaymentRecorderService } from '../service/payment-recorder.service';
import type { GatewaykitPluginOptions } from '../types';
import { ChannelContextService } from './channel-context.service';
import { inboundLogger } from './inbound-logger';

export interface InboundEndpoint {
  accounts: [MethodConfig];
  /** The gateway's record of a trade, asked with the method's credentials (a return's confirmation). */
  tradeRecord: (account: MethodConfig, tradeNo: string, signal: AbortSignal) => Promise<TransactionRecord>;
  storeFor: () => OrderAttempts;
  logger: InboundLogger;
}

/** Which request names the URL: the gateway's callback, the shopper's return, or a kept callback's job. */
export type InboundDoor = 'callback' | 'return' | 'kept';

type GatewayEndpoint =
  /** `methodCode` is the method whose credentials verify the request: only its attempts may change. */
  | { ctx: RequestContext; config: MethodConfig; methodCode: string; client: GatewayClient }
  | { notFound: string };

/**
 * What a callback/return URL `/:channelToken/:methodCode` names: the order's own channel and that
 * channel's payment method credentials, or why it names nothing (answered 404 by the controllers).
 */
@Injectable()
export class GatewayEndpointService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channels: ChannelContextService,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  /**
   * Runs `handle` with what core's handleCallback/handleReturn need for the URL's channel and method:
   * its credentials as the one account and the attempts they may change. A callback recorded in the
   * request, and a kept one recorded by the worker (door `kept`), run on one pooled database connection
   * (one-connection.ts). A return does not, since it may ask the gateway for the record of its trade (a
   * phase never spans a gateway call), nor does a callback that may be kept: its two reads take no
   * connection across the job queue's write, so a slow Redis holds no database connection. Answers 404
   * itself, and does not call `handle`, when the URL names nothing.
   */
  async inbound<T>(
    channelToken: string,
    methodCode: string,
    res: Response,
    handle: (inbound: InboundEndpoint) => Promise<T>,
    door: InboundDoor = 'callback',
  ): Promise<T | undefined> {
    const named = await this.named(channelToken, methodCode, handle, door);
    return 'notFound' in named ? notFound(res, named.notFound) : named.handled;
  }

  /**
   * What `inbound` does without a response to answer: `handle`'s result, or why the URL names nothing
   * (a kept callback, recorded in the worker, has its URL's channel and method and no request).
   */
  async named<T>(
    channelToken: string,
    methodCode: string,
    handle: (inbound: InboundEndpoint) => Promise<T>,
    door: InboundDoor = 'callback',
  ): Promise<{ handled: T } | { notFound: string }> {
    const ctx = await this.channels.forToken(channelToken);
    if (!ctx) return { notFound: 'unknown channel' };
    const run = async (phase: RequestContext): Promise<{ handled: T } | { notFound: string }> => {
      const endpoint = await this.methodOf(phase, methodCode);
      if ('notFound' in endpoint) return { notFound: endpoint.notFound };
      const handled = await handle({
        accounts: [endpoint.config],
        tradeRecord: (_account, tradeNo, signal) =>
          endpoint.client.transactions.retrieve(tradeNo, { signal }),
        storeFor: () => this.recorder.attemptsOf(endpoint.ctx, endpoint.methodCode),
        logger: inboundLogger,
      });
      return { handled };
    };
    const oneConnection = door === 'kept' || (door === 'callback' && !this.options.recordCallbacksInWorker);
    return oneConnection ? onOneConnection(this.connection, ctx, run) : run(ctx);
  }

  private async methodOf(ctx: RequestContext, methodCode: string): Promise<GatewayEndpoint> {
    try {
      // A disabled method still verifies and records what the gateway says of its own payments (a
      // late success, a refund, a chargeback): disabling stops new payments, not their notices.
      const resolved = await this.methods.resolve(ctx, methodCode, { includeDisabled: true });
      return { ctx, config: resolved.config, methodCode: resolved.method.code, client: resolved.client };
    } catch (e) {
      if (!(e instanceof MethodConfigError)) throw e;
      return { notFound: 'unknown payment method' };
    }
  }
}

function notFound(res: Response, why: string): undefined {
  res.status(404).type('text/plain').send(why);
  return undefined;
}
