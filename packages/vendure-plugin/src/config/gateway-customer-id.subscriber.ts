import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Customer, TransactionalConnection } from '@vendure/core';
import type { EntitySubscriberInterface, UpdateEvent } from 'typeorm';

/**
 * Only the plugin writes a customer's gateway customer id (a read-only custom field), by query, once
 * (gateway-customer-id.ts). Vendure's customer mutations save the customer they read, and TypeORM writes
 * every column that differs from the row it reads again just before the save: one that read the customer
 * before the id was stored would write it back empty, and the customer's saved cards would vanish from
 * their list. A save of the entity therefore keeps the id stored.
 */
@Injectable()
export class GatewayCustomerIdSubscriber
  implements EntitySubscriberInterface<Customer>, OnApplicationBootstrap
{
  constructor(private readonly connection: TransactionalConnection) {}

  onApplicationBootstrap(): void {
    this.connection.rawConnection.subscribers.push(this);
  }

  listenTo(): typeof Customer {
    return Customer;
  }

  beforeUpdate(event: UpdateEvent<Customer>): void {
    const customer = event.entity as Customer | undefined;
    const stored = (event.databaseEntity as Customer | undefined)?.customFields?.gatewaykitCustomerId;
    if (!customer?.customFields || !stored) return;
    customer.customFields.gatewaykitCustomerId = stored;
  }
}
