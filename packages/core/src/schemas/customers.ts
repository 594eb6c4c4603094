/** Customer requests and results (docs/gateway-protocol.md#customers, operations 8–11). */
import { z } from 'zod';
import { looseString } from './common.js';

// Required fields and lengths of customer create are "not shown"; these caps mirror the billing detail ones.
export const createCustomerRequestSchema = z.object({
  description: z.string().max(500).optional(),
  email: z.string().min(2).max(200).optional(),
  firstName: z.string().min(1).max(100).optional(),
  lastName: z.string().min(1).max(50).optional(),
  phone: z.string().min(2).max(50).optional(),
});

export const listCustomersQuerySchema = z.object({
  pageIndex: z.number().int().min(1).max(9_999_999_999).default(1),
  pageSize: z.number().int().min(1).max(1000).default(10),
});

export const customerSchema = z.looseObject({
  customerId: z.string().min(1),
  email: looseString,
  firstName: looseString,
  lastName: looseString,
  phone: looseString,
  description: looseString,
  created: looseString,
});

const pagingFields = {
  pageIndex: z.coerce.number().int().optional(),
  pageSize: z.coerce.number().int().optional(),
  total: z.coerce.number().int().optional(),
  list: z.array(customerSchema).nullish(),
};

/**
 * Where `list` sits is "not shown" (docs/gateway-protocol.md#results): accept it inside a `page` object, beside it,
 * or with the paging fields directly in `data`, and normalise to one flat shape.
 */
export const customerListSchema = z
  .looseObject({ ...pagingFields, page: z.looseObject(pagingFields).nullish() })
  .transform((data) => {
    const page = data.page ?? {};
    const list = page.list ?? data.list ?? [];
    return {
      pageIndex: page.pageIndex ?? data.pageIndex ?? 1,
      pageSize: page.pageSize ?? data.pageSize ?? list.length,
      total: page.total ?? data.total ?? list.length,
      list,
    };
  });

export type CreateCustomerRequest = z.input<typeof createCustomerRequestSchema>;
export type ListCustomersQuery = z.input<typeof listCustomersQuerySchema>;
export type Customer = z.output<typeof customerSchema>;
export type CustomerList = z.output<typeof customerListSchema>;
