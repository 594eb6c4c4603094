import type { GatewayClient, RetiredCards } from '@gatewaykit/core';
import { describe, expect, it, vi } from 'vitest';
import { GatewaykitCardService } from '../src/providers/gatewaykit/card';
import { OPTIONS } from './fake-provider';

/** The card service with a fake client recording customers.create and paymentMethods.create. */
function serviceWithFakeGateway(options: Record<string, unknown> = {}) {
  const fake = {
    customers: { create: vi.fn(async () => ({ customerId: 'cus_9', email: 'ada@example.com' })) },
    paymentMethods: {
      create: vi.fn(async () => ({
        customerPaymentMethodId: 'pm_9',
        card: { last4: '4242', brand: 'Visa' },
      })),
    },
  };
  const retired: string[] = [];
  class TestCardService extends GatewaykitCardService {
    protected override get client(): GatewayClient {
      return fake as unknown as GatewayClient;
    }
    // The bindings table, in memory (the store tests use the real one).
    protected override retiredCards(): RetiredCards {
      return { retire: async (id) => void retired.push(id), retireUnbound: async () => undefined };
    }
  }
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const service = new TestCardService({ logger } as never, { ...OPTIONS, ...options } as never);
  return { service, fake, retired };
}

describe("gateway requests built by core's builders", () => {
  it('createAccountHolder sends core’s customer request: limits applied, a too short phone left out', async () => {
    const { service, fake } = serviceWithFakeGateway();
    await service.createAccountHolder({
      context: {
        customer: {
          id: 'cus_medusa_1',
          email: 'ada@example.com',
          first_name: 'A'.repeat(120),
          last_name: null,
          phone: '5',
        },
      },
    } as never);
    expect(fake.customers.create).toHaveBeenCalledWith({
      email: 'ada@example.com',
      firstName: 'A'.repeat(100),
      description: 'medusa customer cus_medusa_1',
    });
  });

  it('savePaymentMethod sends core’s billing detail (phone rule, country upper-cased)', async () => {
    const { service, fake, retired } = serviceWithFakeGateway({ allowRawCardData: true });
    const card = {
      cardNo: '4242424242424242',
      cardExpireMonth: '12',
      cardExpireYear: '2030',
      cardSecurityCode: '123',
    };
    await service.savePaymentMethod({
      data: {
        card,
        billingDetail: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.com',
          phone: ' ',
          address: { line1: '1 Main Street', city: 'Paris', country: 'fr', postalCode: '' },
        },
      },
      context: { account_holder: { data: { id: 'cus_9' } } },
    } as never);
    expect(fake.paymentMethods.create).toHaveBeenCalledWith({
      card,
      customerId: 'cus_9',
      billingDetail: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '00',
        address: { line1: '1 Main Street', city: 'Paris', country: 'FR' },
      },
    });
    // Retired for checkouts: it is no fresh element card (docs/card-element.md#who-owns-a-card).
    expect(retired).toEqual(['pm_9']);
  });
});
