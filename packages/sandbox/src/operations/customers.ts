/** Operations 8–11: customers (docs/gateway-protocol.md#customers). */
import type { z } from 'zod';
import { gatewayTimestamp, type SandboxContext } from '../context.js';
import type { createCustomerRequestSchema, listCustomersQuerySchema } from '../core.js';
import { newCustomerId } from '../ids.js';
import { notFound } from '../replies.js';
import type { CustomerRecord } from '../store.js';

function customerView(customer: CustomerRecord) {
  const { gatewayNo: _, ...view } = customer;
  return view;
}

export function findCustomer(context: SandboxContext, gatewayNo: string, customerId: string): CustomerRecord {
  const customer = context.store.customers.get(customerId);
  if (!customer || customer.gatewayNo !== gatewayNo) throw notFound('customerId', customerId);
  return customer;
}

export function createCustomer(
  context: SandboxContext,
  gatewayNo: string,
  body: z.output<typeof createCustomerRequestSchema>,
) {
  const customer: CustomerRecord = {
    gatewayNo,
    customerId: newCustomerId(),
    email: body.email ?? '',
    firstName: body.firstName ?? '',
    lastName: body.lastName ?? '',
    phone: body.phone ?? '',
    description: body.description ?? '',
    created: gatewayTimestamp(context.clock.now()),
  };
  context.store.customers.set(customer.customerId, customer);
  return customerView(customer);
}

export function retrieveCustomer(context: SandboxContext, gatewayNo: string, customerId: string) {
  return customerView(findCustomer(context, gatewayNo, customerId));
}

/** Paging from pageIndex 1 in creation order; `list` sits beside the paging fields in `data`. */
export function listCustomers(
  context: SandboxContext,
  gatewayNo: string,
  query: z.output<typeof listCustomersQuerySchema>,
) {
  const all = [...context.store.customers.values()].filter((customer) => customer.gatewayNo === gatewayNo);
  const start = (query.pageIndex - 1) * query.pageSize;
  return {
    pageIndex: query.pageIndex,
    pageSize: query.pageSize,
    total: all.length,
    list: all.slice(start, start + query.pageSize).map(customerView),
  };
}

/** Deleting a customer detaches its payment methods; the answer's data is null. */
export function deleteCustomer(context: SandboxContext, gatewayNo: string, customerId: string): null {
  findCustomer(context, gatewayNo, customerId);
  context.store.customers.delete(customerId);
  for (const method of context.store.paymentMethods.values()) {
    if (method.customerId === customerId) method.customerId = null;
  }
  return null;
}
