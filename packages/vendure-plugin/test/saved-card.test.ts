import { describe, expect, it, vi } from 'vitest';
import { SavedCardService } from '../src/service/saved-card.service';

const card = {
  cardNo: '4111111111111111',
  cardExpireMonth: '12',
  cardExpireYear: '2030',
  cardSecurityCode: '123',
};

/** The service over a fake gateway client and a customer with no gateway customer yet. */
function serviceFor(customer: Record<string, unknown>, options = { allowRawCardData: true }) {
  const client = {
    customers: { create: vi.fn(async () => ({ customerId: 'cus_9' })) },
    paymentMethods: {
      create: vi.fn(async () => ({ customerPaymentMethodId: 'pm_9' })),
      list: vi.fn(async () => []),
    },
  };
  // Retired bindings land here (the real table in the store tests).
  const retired: unknown[] = [];
  const bindings = {
    update: vi.fn(async () => undefined),
    createQueryBuilder: () => {
      const builder = {
        insert: () => builder,
        into: () => builder,
        values: (row: unknown) => {
          retired.push(row);
          return builder;
        },
        orUpdate: () => builder,
        execute: async () => undefined,
      };
      return builder;
    },
  };
  const connection = { getRepository: () => bindings };
  const customers = { findOneByUserId: vi.fn(async () => ({ id: 7, customFields: {}, ...customer })) };
  const methods = { resolve: vi.fn(async () => ({ client })) };
  const service = new SavedCardService(
    connection as never,
    customers as never,
    methods as never,
    options as never,
  );
  return { service, client, customers, retired };
}

describe("SavedCardService requests built by core's builders", () => {
  it('creates the gateway customer and the card with core’s customer request and billing detail', async () => {
    const { service, client, retired } = serviceFor({
      emailAddress: 'ada@example.com',
      firstName: '',
      lastName: 'Lovelace',
      phoneNumber: '1',
    });
    await service.save({ activeUserId: 1 } as never, 'gateway-card', card, {
      line1: '1 Main Street',
      city: 'Austin',
      countryCode: 'us',
      province: 'TX',
      postalCode: null,
    });
    // Optional on a customer record: an empty name and a 1-character phone are left out, not faked.
    expect(client.customers.create).toHaveBeenCalledWith({
      email: 'ada@example.com',
      lastName: 'Lovelace',
      description: 'Vendure customer 7',
    });
    // Required on a billing detail: the name placeholder and the '00' phone, the country upper-cased.
    expect(client.paymentMethods.create).toHaveBeenCalledWith({
      customerId: 'cus_9',
      card,
      billingDetail: {
        firstName: 'Customer',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '00',
        address: { line1: '1 Main Street', city: 'Austin', country: 'US', state: 'TX' },
      },
    });
    // Retired for checkouts: it is no fresh element card (docs/card-element.md#who-owns-a-card).
    expect(retired).toEqual([{ customerPaymentMethodId: 'pm_9', orderId: 'removed' }]);
  });
});

describe('SavedCardService for element cards', () => {
  const resolved = (client: unknown) => ({ client }) as never;

  it('a guest has no gateway customer, and none is created', async () => {
    const { service, client, customers } = serviceFor({});
    expect(await service.shopperGatewayCustomerId({} as never, resolved(client), true)).toBeUndefined();
    expect(customers.findOneByUserId).not.toHaveBeenCalled();
    expect(client.customers.create).not.toHaveBeenCalled();
  });

  it("reads a customer's gateway customer without creating one unless the card is saved", async () => {
    const { service, client } = serviceFor({
      emailAddress: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'L',
    });
    expect(
      await service.shopperGatewayCustomerId({ activeUserId: 1 } as never, resolved(client), false),
    ).toBe(undefined);
    expect(client.customers.create).not.toHaveBeenCalled();
    expect(await service.shopperGatewayCustomerId({ activeUserId: 1 } as never, resolved(client), true)).toBe(
      'cus_9',
    );
    expect(client.customers.create).toHaveBeenCalledTimes(1);
  });

  it('keeps the existing gateway customer', async () => {
    const { service, client } = serviceFor({ customFields: { gatewaykitCustomerId: 'cus_1' } });
    expect(await service.shopperGatewayCustomerId({ activeUserId: 1 } as never, resolved(client), true)).toBe(
      'cus_1',
    );
    expect(client.customers.create).not.toHaveBeenCalled();
  });

  it('without the PCI opt-in, saving raw card data points to the card element and sends nothing', async () => {
    const { service, client } = serviceFor({}, { allowRawCardData: false });
    await expect(
      service.save({ activeUserId: 1 } as never, 'gateway-card', card, {
        line1: '1 Main Street',
        city: 'Austin',
        countryCode: 'US',
      }),
    ).rejects.toThrow(/card element.*elementPaymentMethodId and saveCard: true/);
    expect(client.paymentMethods.create).not.toHaveBeenCalled();
  });
});
