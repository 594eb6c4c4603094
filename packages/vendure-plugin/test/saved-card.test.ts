import { Customer } from '@vendure/core';
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
  // The customer's row as far as the gateway customer id goes (gateway-customer-id.ts): written only
  // while empty, then read back.
  let storedId = (customer.customFields as { gatewaykitCustomerId?: string } | undefined)
    ?.gatewaykitCustomerId;
  const customerRows = {
    metadata: { findColumnWithPropertyPath: () => ({ databaseName: 'customFieldsGatewaykitcustomerid' }) },
    manager: { connection: { driver: { escape: (name: string) => `"${name}"` } } },
    createQueryBuilder: () => {
      let written: string | undefined;
      const builder = {
        update: () => builder,
        set: (values: { customFields: { gatewaykitCustomerId: string } }) => {
          written = values.customFields.gatewaykitCustomerId;
          return builder;
        },
        select: () => builder,
        where: () => builder,
        andWhere: () => builder,
        execute: async () => {
          storedId ??= written;
        },
        getRawOne: async () => ({ stored: storedId ?? null }),
      };
      return builder;
    },
  };
  const connection = {
    getRepository: (_ctx: unknown, entity: unknown) => (entity === Customer ? customerRows : bindings),
  };
  const customers = { findOneByUserId: vi.fn(async () => ({ id: 7, customFields: {}, ...customer })) };
  const methods = { resolve: vi.fn(async () => ({ client })) };
  const service = new SavedCardService(
    connection as never,
    customers as never,
    methods as never,
    options as never,
  );
  /** Another request storing its gateway customer id meanwhile. */
  const storeMeanwhile = (id: string) => {
    storedId = id;
  };
  return { service, client, customers, retired, storeMeanwhile };
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

  it('attack: two first requests at once (two tabs): the later one uses the gateway customer stored first, not its own', async () => {
    const { service, client, storeMeanwhile } = serviceFor({
      emailAddress: 'ada@example.com',
      lastName: 'L',
    });
    client.customers.create.mockImplementationOnce(async () => {
      storeMeanwhile('cus_first');
      return { customerId: 'cus_9' };
    });
    expect(await service.shopperGatewayCustomerId({ activeUserId: 1 } as never, resolved(client), true)).toBe(
      'cus_first',
    );
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
