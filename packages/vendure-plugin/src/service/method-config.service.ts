import { GatewayClient, gatewayClientFor } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { PaymentMethod, RequestContext, TransactionalConnection } from '@vendure/core';
import { argsToRecord, MethodConfig, MethodConfigError, parseMethodArgs } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, HANDLER_CODE } from '../constants';
import type { GatewaykitPluginOptions } from '../types';

export interface ResolvedMethod {
  method: PaymentMethod;
  config: MethodConfig;
  client: GatewayClient;
}

/**
 * Loads a gateway PaymentMethod of the context's channel and its credentials. Credentials are per
 * PaymentMethod, so each channel talks to the gateway (and verifies callbacks) with its own key.
 */
@Injectable()
export class MethodConfigService {
  constructor(
    private readonly connection: TransactionalConnection,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  /**
   * `includeDisabled`: reconciliation and refunds still settle payments of a method the merchant has
   * since disabled for new payments.
   */
  async resolve(
    ctx: RequestContext,
    code: string,
    options: { includeDisabled?: boolean } = {},
  ): Promise<ResolvedMethod> {
    const method = await this.connection.getRepository(ctx, PaymentMethod).findOne({
      where: { code, channels: { id: ctx.channelId } },
      relations: ['channels'],
    });
    if (!method || method.handler.code !== HANDLER_CODE) {
      throw new MethodConfigError(`No gateway payment method "${code}" in this channel`);
    }
    if (!method.enabled && !options.includeDisabled)
      throw new MethodConfigError(`Payment method "${code}" is disabled`);
    const config = parseMethodArgs(argsToRecord(method.handler.args));
    return { method, config, client: this.clientFor(config) };
  }

  /** One client per distinct settings for the whole process, shared with every channel using them. */
  clientFor(config: MethodConfig): GatewayClient {
    const timeoutMs = this.options.gatewayTimeoutMs;
    return gatewayClientFor(timeoutMs ? { ...config, timeoutMs } : config);
  }
}
