import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import {
  CALLBACK_KEPT_EVENT,
  CALLBACK_KEPT_SUBSCRIBER_ID,
  recordKeptCallbackEvent,
} from '../lib/kept-callbacks';

/**
 * A gateway callback the callback route kept on the event bus (`recordCallbacksInWorker`), recorded here,
 * on the worker, exactly as the request would have (lib/kept-callbacks.ts). A failure to record throws,
 * so the Redis event bus delivers the event again.
 */
export default async function gatewaykitCallbackKept({
  event,
  container,
}: SubscriberArgs<unknown>): Promise<void> {
  await recordKeptCallbackEvent(container, event.data);
}

export const config: SubscriberConfig = {
  event: CALLBACK_KEPT_EVENT,
  context: { subscriberId: CALLBACK_KEPT_SUBSCRIBER_ID },
};
