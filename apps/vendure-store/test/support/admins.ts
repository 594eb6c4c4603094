import { type GraphqlClient, loginAdmin } from '../../src/graphql-client';
import type { Stack } from './stack';

/** A new administrator whose role may read and update orders, and nothing of the plugin's own. */
export async function limitedAdmin(stack: Stack): Promise<GraphqlClient> {
  const suffix = Math.random().toString(36).slice(2, 8);
  const { createRole } = await stack.admin.query<{ createRole: { id: string } }>(
    `mutation ($input: CreateRoleInput!) { createRole(input: $input) { id } }`,
    {
      input: {
        code: `order-clerk-${suffix}`,
        description: 'orders only',
        permissions: ['ReadOrder', 'UpdateOrder'],
      },
    },
  );
  const email = `clerk-${suffix}@example.com`;
  await stack.admin.query(
    `mutation ($input: CreateAdministratorInput!) { createAdministrator(input: $input) { id } }`,
    {
      input: {
        firstName: 'Order',
        lastName: 'Clerk',
        emailAddress: email,
        password: 'clerk-password',
        roleIds: [createRole.id],
      },
    },
  );
  return loginAdmin(stack.adminUrl, email, 'clerk-password');
}
