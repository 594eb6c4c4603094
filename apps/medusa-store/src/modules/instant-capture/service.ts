import { randomUUID } from 'node:crypto';
import type {
  AuthorizePaymentOutput,
  CapturePaymentOutput,
  GetPaymentStatusOutput,
  InitiatePaymentOutput,
  ProviderWebhookPayload,
  WebhookActionResult,
} from '@medusajs/framework/types';
import { AbstractPaymentProvider, PaymentActions, PaymentSessionStatus } from '@medusajs/framework/utils';

/**
 * The benchmark's second baseline (scripts/bench.ts), never offered to shoppers: a provider that
 * reports every payment as captured at once, with no network. Medusa records a captured payment with
 * more work than an authorized one (a capture row and an order transaction inside the completion), so
 * the gap between it and pp_system_default is Medusa's own, and the gap between gatewaykit and it is
 * the plugin's (docs/performance.md).
 */
export class InstantCaptureProvider extends AbstractPaymentProvider {
  static override identifier = 'instant-capture';

  // Public, as ModuleProvider needs; the base class's is protected.
  constructor(container: Record<string, unknown>, options: Record<string, unknown>) {
    super(container, options);
  }

  async initiatePayment(): Promise<InitiatePaymentOutput> {
    return { id: randomUUID(), data: {} };
  }

  async authorizePayment(): Promise<AuthorizePaymentOutput> {
    return { status: PaymentSessionStatus.CAPTURED, data: {} };
  }

  async capturePayment(): Promise<CapturePaymentOutput> {
    return { data: {} };
  }

  async cancelPayment() {
    return { data: {} };
  }

  async deletePayment() {
    return { data: {} };
  }

  async refundPayment() {
    return { data: {} };
  }

  async retrievePayment() {
    return { data: {} };
  }

  async updatePayment() {
    return { data: {} };
  }

  async getPaymentStatus(): Promise<GetPaymentStatusOutput> {
    return { status: PaymentSessionStatus.CAPTURED };
  }

  async getWebhookActionAndData(_payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED };
  }
}
