/**
 * The trust boundary both plugins put in front of the storefront (docs/SECURITY.md). What a shopper's
 * browser sends is parsed by an allow-list schema: card data anywhere is refused first, then unknown
 * keys, wrong types and out-of-bounds values, each named by its path. The adapters call this before
 * they store anything or call the gateway, and turn the error into their platform's answer.
 */
import { z } from 'zod';
import { containsCardNumber, findCardData } from './card-data.js';
import { GatewayValidationError, type ValidationIssue } from './errors.js';
import { isLocalPaymentMethodName } from './local-methods.js';

/**
 * A gateway id's own shape: a letter prefix, `_`, 19 digits (`pm_1526753334131306496`,
 * docs/gateway-protocol.md#identifiers). Only this shape may hold a digit run the card-number scan
 * would flag: a prefix glued to a card number of any other length is not an id.
 */
const GATEWAY_ID = /^[A-Za-z]+_\d{19}$/;

/**
 * A gateway payment method (customerPaymentMethodId: a saved card, or what the card element made) as a
 * storefront names it. Gateway ids carry a letter prefix (`pm_` + digits, docs/gateway-protocol.md), so a
 * value that is digits once its `-` and `_` are gone, or that holds a card number without being of the
 * id's shape (a card number with a letter glued on), is a card number typed into the wrong field:
 * refused here, before it is stored or sent to the gateway as a path in a lookup.
 */
export const savedCardIdInput = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be a payment method id (1 to 100 letters, digits, _ or -)')
  .refine(
    (id) => !/^\d+$/.test(id.replace(/[-_]/g, '')) && (GATEWAY_ID.test(id) || !containsCardNumber(id)),
    'looks like a card number; send the payment method id (pm_…) the card element or the saved cards returned',
  );

/** A local payment method name (klarna, ideal, …), any case. */
export const localMethodInput = z
  .string()
  .max(40, 'is too long')
  .refine(isLocalPaymentMethodName, "is not one of the gateway's local payment methods");

/**
 * Key names are echoed in messages: cut so a hostile key cannot flood an error or a log, and with
 * their digits hidden when they hold many (a key can carry a card number the scan did not recognise).
 */
function shownKey(key: string): string {
  const cut = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return cut.replace(/\D/g, '').length >= 6 ? cut.replace(/\d/g, '#') : cut;
}

function joinPath(root: string, path: PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${shownKey(String(key))}`),
    root,
  );
}

function issuesOfInput(error: z.ZodError, root: string): ValidationIssue[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: joinPath(root, [...issue.path, key]),
          message: 'is not accepted here',
        }))
      : [{ path: joinPath(root, issue.path), message: issue.message }],
  );
}

/**
 * Parses storefront input with an allow-list schema (build it with z.strictObject so unknown keys are
 * refused). Throws GatewayValidationError naming each bad field, never its value. `cardFields` names
 * top-level keys where card data is the point (a PCI merchant's card form): only the schema checks them.
 */
export function parseStorefrontInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  root = 'data',
  cardFields: readonly string[] = [],
): z.output<S> {
  const scanned =
    cardFields.length > 0 && input !== null && typeof input === 'object' && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).filter(([key]) => !cardFields.includes(key)))
      : input;
  const cardPath = findCardData(scanned, root);
  if (cardPath) {
    const issue = {
      path: cardPath,
      message: 'looks like card data, which is never accepted here (use a saved card or the hosted page)',
    };
    throw new GatewayValidationError(`Invalid ${what}: ${issue.path}: ${issue.message}`, [issue]);
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = issuesOfInput(parsed.error, root);
  throw new GatewayValidationError(
    `Invalid ${what}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    issues,
  );
}
