import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { internal_getRequestContext } from '@vendure/core';
import { mergeMap, type Observable } from 'rxjs';
import { withHiddenSignKey } from '../config/hidden-sign-key';

/** The parts of GraphQL's resolve info this reads. */
interface ResolvedField {
  fieldName: string;
  parentType: { name: string };
}

/** Admin API fields that answer payment methods, and where in their answer the methods are. */
const METHOD_FIELDS: Record<string, 'one' | 'list'> = {
  paymentMethod: 'one',
  paymentMethods: 'list',
  createPaymentMethod: 'one',
  updatePaymentMethod: 'one',
};

type MethodLike = Parameters<typeof withHiddenSignKey>[0];

/**
 * Hides the gateway's sign key in every Admin API answer that carries payment methods
 * (config/hidden-sign-key.ts, docs/SECURITY.md §4). The answer is awaited first: Vendure's
 * transaction interceptor emits the resolver's promise, not its value.
 */
@Injectable()
export class HiddenSignKeyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== 'graphql') return next.handle();
    const info = context.getArgByIndex<ResolvedField | undefined>(3);
    const shape =
      info && (info.parentType.name === 'Query' || info.parentType.name === 'Mutation')
        ? METHOD_FIELDS[info.fieldName]
        : undefined;
    if (!shape) return next.handle();
    const { req } = context.getArgByIndex<{ req: Parameters<typeof internal_getRequestContext>[0] }>(2);
    if (internal_getRequestContext(req, context).apiType !== 'admin') return next.handle();
    return next.handle().pipe(
      mergeMap(async (answer) => {
        const value = (await answer) as unknown;
        if (shape === 'one') return hideIn(value);
        const list = value as { items?: unknown[] } | null;
        return list?.items ? { ...list, items: list.items.map(hideIn) } : list;
      }),
    );
  }
}

/** A payment method with its sign key hidden; anything else (an ErrorResult, null) as it is. */
function hideIn(value: unknown): unknown {
  if (!value || typeof value !== 'object' || !('handler' in value)) return value;
  return withHiddenSignKey(value as MethodLike);
}
