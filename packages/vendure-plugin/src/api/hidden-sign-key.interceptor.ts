import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { internal_getRequestContext } from '@vendure/core';
import { mergeMap, type Observable } from 'rxjs';
import { withHiddenSignKey } from '../config/hidden-sign-key';

/** The parts of GraphQL's resolve info this reads. */
interface ResolvedField {
  parentType: { name: string };
  returnType: GraphqlType;
}

/** A GraphQL output type: named, or a list / non-null wrapper of one. */
interface GraphqlType {
  name?: string;
  ofType?: GraphqlType;
}

/** The answer types that carry payment methods: one, a list of them, or Vendure's paginated list. */
const METHOD_TYPES = new Set(['PaymentMethod', 'PaymentMethodList']);

type MethodLike = Parameters<typeof withHiddenSignKey>[0];

/**
 * Hides the gateway's sign key in every Admin API answer that carries payment methods
 * (config/hidden-sign-key.ts, docs/SECURITY.md §4), chosen by the field's return type, not its name:
 * `paymentMethod(s)`, `create`/`updatePaymentMethod`, `assign`/`removePaymentMethodsToChannel` and any
 * field Vendure adds later. The answer is awaited first: Vendure's transaction interceptor emits the
 * resolver's promise, not its value.
 */
@Injectable()
export class HiddenSignKeyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== 'graphql') return next.handle();
    const info = context.getArgByIndex<ResolvedField | undefined>(3);
    const root = info?.parentType.name === 'Query' || info?.parentType.name === 'Mutation';
    if (!info || !root || !METHOD_TYPES.has(namedType(info.returnType))) return next.handle();
    const { req } = context.getArgByIndex<{ req: Parameters<typeof internal_getRequestContext>[0] }>(2);
    if (internal_getRequestContext(req, context).apiType !== 'admin') return next.handle();
    return next.handle().pipe(mergeMap(async (answer) => hideIn((await answer) as unknown)));
  }
}

function namedType(type: GraphqlType): string {
  let named = type;
  while (named.ofType) named = named.ofType;
  return named.name ?? '';
}

/**
 * The answer with every payment method's sign key hidden: a method, a list of them, or a paginated
 * list (`items`); anything else (an ErrorResult, null) as it is.
 */
function hideIn(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hideIn);
  if (!value || typeof value !== 'object') return value;
  if ('handler' in value) return withHiddenSignKey(value as MethodLike);
  const list = value as { items?: unknown };
  return Array.isArray(list.items) ? { ...value, items: list.items.map(hideIn) } : value;
}
