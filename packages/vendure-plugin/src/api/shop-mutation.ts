import type { ExecutionContext } from '@nestjs/common';
import { internal_getRequestContext, type RequestContext } from '@vendure/core';

/** The parts of GraphQL's resolve info this reads. */
interface ResolvedField {
  fieldName: string;
  parentType: { name: string };
}

/**
 * The Shop API mutation an interceptor is asked about, when it is one of `fields`: its name, the
 * request's context and its arguments; undefined for anything else (a query, the Admin API, REST).
 */
export function shopMutationOf(
  context: ExecutionContext,
  fields: ReadonlySet<string>,
): { field: string; ctx: RequestContext; args: Record<string, unknown> } | undefined {
  if (context.getType<string>() !== 'graphql') return undefined;
  const info = context.getArgByIndex<ResolvedField | undefined>(3);
  if (info?.parentType.name !== 'Mutation' || !fields.has(info.fieldName)) return undefined;
  const { req } = context.getArgByIndex<{ req: Parameters<typeof internal_getRequestContext>[0] }>(2);
  const ctx = internal_getRequestContext(req, context);
  if (ctx.apiType !== 'shop') return undefined;
  return { field: info.fieldName, ctx, args: context.getArgByIndex<Record<string, unknown>>(1) ?? {} };
}
