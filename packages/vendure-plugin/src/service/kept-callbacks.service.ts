import { type CallbackEvent, recordKeptCallback, redactedErrorText } from '@gatewaykit/core';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type JobQueue, JobQueueService, Logger } from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewayEndpointService } from '../http/gateway-endpoint.service';
import type { GatewaykitPluginOptions } from '../types';

/** Vendure's job queue that carries kept callbacks from the servers to the worker. */
export const KEPT_CALLBACKS_QUEUE = 'gatewaykit-kept-callbacks';

/**
 * How many times the worker tries a kept callback again (BullMQ: exponential backoff from 1 s, so
 * about 17 minutes in all), as the gateway would have redelivered it for a 500. A callback still not
 * recorded then is the reconciliation's: it settles a sent attempt from the gateway's record.
 */
const KEPT_CALLBACK_RETRIES = 10;

/** A job's data: the callback URL's channel and method (whose key verified it), and the event as JSON. */
interface KeptCallbackJob {
  channelToken: string;
  methodCode: string;
  event: string;
}

/**
 * The gateway's status callbacks answered once kept, recorded in the worker (plugin option
 * `recordCallbacksInWorker`, docs/inbound.md#kept-callbacks): the server verifies the callback and adds
 * it to the job queue, the worker records it exactly as the request would have. A job runs again when
 * recording fails; copies of one callback each become a job and change nothing after the first.
 */
@Injectable()
export class KeptCallbacks implements OnModuleInit {
  private queue: JobQueue<KeptCallbackJob> | undefined;

  constructor(
    private readonly jobQueueService: JobQueueService,
    private readonly endpoints: GatewayEndpointService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.options.recordCallbacksInWorker) return;
    this.queue = await this.jobQueueService.createQueue<KeptCallbackJob>({
      name: KEPT_CALLBACKS_QUEUE,
      // Vendure counts the tries made before this one: the last try is the one that reaches `retries`.
      process: (job) => this.record(job.data, job.attempts >= job.retries),
    });
  }

  /** Keeps a verified status callback of this URL for the worker; false when the request records it. */
  async keep(channelToken: string, methodCode: string, event: CallbackEvent): Promise<boolean> {
    if (!this.queue) return false;
    const { type, data } = event;
    await this.queue.add(
      { channelToken, methodCode, event: JSON.stringify({ type, data }) },
      { retries: KEPT_CALLBACK_RETRIES },
    );
    return true;
  }

  private async record(job: KeptCallbackJob, lastTry: boolean): Promise<void> {
    const event: unknown = JSON.parse(job.event);
    const orderNo = (event as { data?: { orderNo?: unknown } } | null)?.data?.orderNo;
    const named = typeof orderNo === 'string' ? orderNo.slice(0, 50) : '?';
    let recorded: Awaited<ReturnType<GatewayEndpointService['named']>>;
    try {
      recorded = await this.endpoints.named(
        job.channelToken,
        job.methodCode,
        (inbound) => recordKeptCallback({ event, store: inbound.storeFor(), logger: inbound.logger }),
        'kept',
      );
    } catch (error) {
      if (lastTry) {
        Logger.error(
          `kept callback for ${named} not recorded after its last try (${redactedErrorText(error)}): the reconciliation settles its attempt from the gateway's record`,
          loggerCtx,
        );
      }
      throw error;
    }
    // The channel or the method was deleted since: no try can record it. Loud, as a lost payment is.
    if ('notFound' in recorded) {
      Logger.error(
        `kept callback for ${named} not recorded: ${recorded.notFound} (the channel or method of its URL); settle it in the gateway's merchant portal`,
        loggerCtx,
      );
    }
  }
}
