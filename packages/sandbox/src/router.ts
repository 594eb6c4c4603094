/**
 * Routes `/V2022-03/...` requests with core's OPERATIONS table, so the client and the sandbox can
 * never disagree on a path, its parameters or its method.
 */
import { GATEWAY_API_VERSION, OPERATIONS } from './core.js';

export type Operation = (typeof OPERATIONS)[number];
export type OperationName = Operation['name'];

interface CompiledRoute {
  operation: Operation;
  pattern: RegExp;
  /** Number of path segments: a cheap filter before the pattern runs. */
  segments: number;
  /** Fixed (non-parameter) segments: the more, the more specific the route. */
  fixed: number;
}

function countSegments(path: string): number {
  let count = 0;
  for (let index = 0; index < path.length; index++) if (path.charCodeAt(index) === 47) count++;
  // A trailing slash does not add a segment (patterns accept it).
  return path.length > 1 && path.endsWith('/') ? count - 1 : count;
}

export const API_PREFIX = `/${GATEWAY_API_VERSION}`;

function compile(operation: Operation): CompiledRoute {
  const source = operation.path
    .split('/')
    .map((segment) =>
      /^\{\w+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return {
    operation,
    pattern: new RegExp(`^${source}/?$`),
    segments: countSegments(operation.path),
    fixed: operation.path.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
  };
}

const ROUTES: readonly CompiledRoute[] = OPERATIONS.map(compile);
// Paths without parameters are looked up directly: the hot path should not try every pattern.
const STATIC = new Map(
  OPERATIONS.filter((operation) => operation.pathParams.length === 0).map((operation) => [
    `${operation.method} ${operation.path}`,
    operation,
  ]),
);

export type RouteMatch =
  | { kind: 'operation'; operation: Operation; pathParams: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'unknown' };

/** `path` is below the version prefix, e.g. `/customers/cus_1`. Fixed segments beat parameters. */
export function matchRoute(method: string, path: string): RouteMatch {
  const direct = STATIC.get(`${method} ${path}`);
  if (direct) return { kind: 'operation', operation: direct, pathParams: {} };
  const allowed: string[] = [];
  let best: CompiledRoute | undefined;
  let values: RegExpExecArray | undefined;
  const segments = countSegments(path);
  for (const route of ROUTES) {
    if (route.segments !== segments) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.operation.method !== method) {
      allowed.push(route.operation.method);
      continue;
    }
    if (!best || route.fixed > best.fixed) {
      best = route;
      values = match;
    }
  }
  if (!best || !values) return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'unknown' };
  const pathParams: Record<string, string> = {};
  const names = best.operation.pathParams;
  try {
    for (let index = 0; index < names.length; index++) {
      pathParams[names[index] as string] = decodeURIComponent(values[index + 1] ?? '');
    }
  } catch {
    return { kind: 'unknown' };
  }
  return { kind: 'operation', operation: best.operation, pathParams };
}

/** Resolves a fault target: an operation name, its path (with or without the version prefix) or `*`. */
export function resolveOperationName(target: string): OperationName | '*' | undefined {
  if (target === '*') return '*';
  const byName = OPERATIONS.find((operation) => operation.name === target);
  if (byName) return byName.name;
  // Accepts `/customers/{customerId}` or, where one path has two methods, `GET /customers`.
  const [method, rawPath = ''] = target.includes(' ') ? target.split(' ', 2) : [undefined, target];
  const path = rawPath.startsWith(API_PREFIX) ? rawPath.slice(API_PREFIX.length) : rawPath;
  const byPath = OPERATIONS.filter(
    (operation) => operation.path === path && (!method || operation.method === method.toUpperCase()),
  );
  return byPath.length === 1 ? byPath[0]?.name : undefined;
}
