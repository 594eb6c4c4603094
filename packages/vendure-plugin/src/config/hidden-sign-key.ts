import { HANDLER_CODE } from '../constants';

/** One handler argument as Vendure stores it. */
interface ConfigArg {
  name: string;
  value: string;
}

/**
 * The sign key is write-only through the Admin API (docs/SECURITY.md §4): Vendure returns handler
 * arguments as stored to every admin who may read payment methods, and anyone holding the key can sign
 * a success for an unpaid order. Admin answers carry HIDDEN_SIGN_KEY instead; a save that sends it back
 * unchanged keeps the stored key.
 */
const HIDDEN_SIGN_KEY = '(hidden: type a new sign key to replace it)';

/** The parts of a PaymentMethod this reads. */
interface MethodWithHandler {
  handler?: { code: string; args: ConfigArg[] } | null;
}

/** `method` as an admin may see it: a copy with the gateway's sign key hidden; other methods as they are. */
export function withHiddenSignKey<T extends MethodWithHandler>(method: T): T {
  const handler = method.handler;
  if (!handler || handler.code !== HANDLER_CODE) return method;
  const args = handler.args.map((arg) => (arg.name === 'signKey' ? { ...arg, value: HIDDEN_SIGN_KEY } : arg));
  // A copy: the entity may be shared (Vendure caches payment methods), and the key must stay in it.
  return Object.assign(Object.create(Object.getPrototypeOf(method) as object) as T, method, {
    handler: { ...handler, args },
  });
}

/**
 * Handler arguments about to be saved, with a hidden sign key sent back replaced by the stored one.
 * Undefined when it was sent back for a method that has none stored (a new one): that must be refused.
 */
export function withStoredSignKey(
  args: ConfigArg[],
  stored: ConfigArg[] | undefined,
): ConfigArg[] | undefined {
  const sent = args.find((arg) => arg.name === 'signKey');
  if (sent?.value !== HIDDEN_SIGN_KEY) return args;
  const kept = stored?.find((arg) => arg.name === 'signKey')?.value;
  if (kept === undefined || kept === HIDDEN_SIGN_KEY) return undefined;
  return args.map((arg) => (arg === sent ? { ...arg, value: kept } : arg));
}
