import {
  KeptCallbackRefusedError,
  keptOrderNoForLog,
  recordKeptCallback,
  type SealedCallback,
} from '@gatewaykit/core';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService, type JobQueue, JobQueueService, Logger } from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewayEndpointService } from '../http/gateway-endpoint.service';
import type { GatewaykitPluginOptions } from '../types';

/** Vendure's job queue that carries kept callbacks from the servers to the worker. */
export const KEPT_CALLBACKS_QUEUE = 'gatewaykit-kept-callbacks';

/**
 * How many times the worker tries a kept callback again: with BullMQ's exponential backoff from 1 s,
 * about 18 hours in all, as long as the gateway would have redelivered it after a 500 (15 tries over
 * 17 hours). The last try that fails alerts a success as paid but not applied (recordKeptCallback).
 */
export const KEPT_CALLBACK_RETRIES = 16;

/** A job's data: the callback URL's channel and method (whose key verified it), and the sealed event. */
interface KeptCallbackJob {
  channelToken: string;
  methodCode: string;
  /** core's SealedCallback: the event's JSON and its seal with the method's sign key. */
  event: string;
  seal: string;
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
    private readonly configService: ConfigService,
    private readonly endpoints: GatewayEndpointService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.options.recordCallbacksInWorker) return;
    // Kept in one process's memory, a callback answered `success` would die with it, unrecorded.
    // (Vendure's default strategy; its class is not exported by @vendure/core, hence its name.)
    if (
      this.configService.jobQueueOptions.jobQueueStrategy?.constructor?.name === 'InMemoryJobQueueStrategy'
    ) {
      throw new Error(
        "gatewaykit: recordCallbacksInWorker needs a durable job queue (BullMQJobQueuePlugin, or Vendure's DefaultJobQueuePlugin) and a worker; the in-memory job queue would lose callbacks already answered",
      );
    }
    this.queue = await this.jobQueueService.createQueue<KeptCallbackJob>({
      name: KEPT_CALLBACKS_QUEUE,
      // Vendure counts the tries made before this one: the last try is the one that reaches `retries`.
      process: (job) => this.record(job.data, job.attempts >= job.retries),
    });
  }

  /**
   * Keeps a verified status callback of this URL for the worker, as core sealed it (only what
   * recording needs, with the method key's seal); false when the request records it.
   */
  async keep(channelToken: string, methodCode: string, sealed: SealedCallback): Promise<boolean> {
    if (!this.queue) return false;
    await this.queue.add(
      { channelToken, methodCode, event: sealed.event, seal: sealed.seal },
      { retries: KEPT_CALLBACK_RETRIES },
    );
    return true;
  }

  private async record(job: KeptCallbackJob, lastTry: boolean): Promise<void> {
    const sealed = { event: job.event, seal: job.seal };
    const recorded = await this.endpoints.named(
      job.channelToken,
      job.methodCode,
      ({ accounts: [method], storeFor, logger }) =>
        recordKeptCallback({ sealed, signKey: method.signKey, store: storeFor(), logger, lastTry }).catch(
          (error: unknown) => {
            // A job no try can record (its seal does not match: written to Redis by hand, or kept
            // before the method's key changed): core logged it at error level; the job is done.
            if (!(error instanceof KeptCallbackRefusedError)) throw error;
          },
        ),
      'kept',
    );
    // The channel or the method was deleted since: no try can record it. Loud, as a lost payment is.
    if ('notFound' in recorded) {
      Logger.error(
        `PAID BUT NOT APPLIED?: kept callback for ${keptOrderNoForLog(sealed)} not recorded: ${recorded.notFound} (the channel or method of its URL); settle it in the gateway's merchant portal`,
        loggerCtx,
      );
    }
  }
}
