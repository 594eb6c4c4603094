import { Customer, type TransactionalConnection } from '@vendure/core';
import type { UpdateEvent } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { GatewayCustomerIdSubscriber } from '../src/config/gateway-customer-id.subscriber';

const subscriber = new GatewayCustomerIdSubscriber({} as TransactionalConnection);

/** The update event of a save of `customer` over the row stored with `storedId`. */
function saving(customer: Customer, storedId: string | null) {
  return {
    entity: customer,
    databaseEntity: { customFields: { gatewaykitCustomerId: storedId } },
  } as unknown as UpdateEvent<Customer>;
}

describe('GatewayCustomerIdSubscriber', () => {
  it("attack: a customer save from a read before the gateway customer id was stored keeps the stored id (the customer's saved cards live under it)", () => {
    const stale = new Customer({ id: 3, firstName: 'New', customFields: { gatewaykitCustomerId: null } });
    subscriber.beforeUpdate(saving(stale, 'cus_A'));
    expect(stale.customFields.gatewaykitCustomerId).toBe('cus_A');
  });

  it('keeps the stored id over another one held in memory', () => {
    const other = new Customer({ id: 3, customFields: { gatewaykitCustomerId: 'cus_B' } });
    subscriber.beforeUpdate(saving(other, 'cus_A'));
    expect(other.customFields.gatewaykitCustomerId).toBe('cus_A');
  });

  it('changes nothing while no id is stored', () => {
    const fresh = new Customer({ id: 3, customFields: { gatewaykitCustomerId: null } });
    subscriber.beforeUpdate(saving(fresh, null));
    expect(fresh.customFields.gatewaykitCustomerId).toBeNull();
  });
});
