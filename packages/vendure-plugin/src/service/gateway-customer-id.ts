import { Customer, type ID } from '@vendure/core';
import type { Repository } from 'typeorm';

/** The custom field's column as the database names it (TypeORM's name for the embedded column). */
function idColumn(customers: Repository<Customer>): string {
  const column = customers.metadata.findColumnWithPropertyPath('customFields.gatewaykitCustomerId');
  if (!column)
    throw new Error('gatewaykit: the Customer custom field gatewaykitCustomerId is not configured');
  return customers.manager.connection.driver.escape(column.databaseName);
}

/**
 * Stores `created` as the customer's gateway customer id unless one is stored already, and answers the
 * id stored: the customer's saved cards live under it. Two first saved-card requests at once (two tabs)
 * each create a gateway customer; an unconditional write let the later one replace the earlier id, and
 * every card saved under it vanished from the customer's list. The loser's gateway customer stays unused.
 */
export async function keepGatewayCustomerId(
  customers: Repository<Customer>,
  customerId: ID,
  created: string,
): Promise<string> {
  const column = idColumn(customers);
  await customers
    .createQueryBuilder()
    .update(Customer)
    .set({ customFields: { gatewaykitCustomerId: created } } as never)
    .where('id = :id', { id: customerId })
    .andWhere(`${column} IS NULL`)
    .execute();
  const stored = await customers
    .createQueryBuilder('customer')
    .select(`customer.${column}`, 'stored')
    .where('customer.id = :id', { id: customerId })
    .getRawOne<{ stored: string | null }>();
  return stored?.stored ?? created;
}
