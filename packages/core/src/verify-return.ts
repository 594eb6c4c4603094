/**
 * Verifies the signed query the gateway appends to returnUrl (docs/signing.md#returns): HMAC over the
 * decoded values of the 11 fields sorted by name, no header part; case-insensitive, constant-time.
 */
import { SignatureVerificationError } from './errors.js';
import { safeParseFast } from './schemas/fast-forms.js';
import { type ReturnFields, returnFieldsSchema } from './schemas/returns.js';
import { RETURN_FIELD_NAMES, type ReturnFieldName, safeEqualHex, signReturn } from './signing.js';

export type ReturnQuery =
  | URLSearchParams
  | string
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyReturnInput {
  query: ReturnQuery;
  signKey: string;
}

/** The return's query as URLSearchParams, whatever shape the framework handed over. */
export function toReturnParams(query: ReturnQuery): URLSearchParams {
  if (query instanceof URLSearchParams) return query;
  if (typeof query === 'string') return new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') params.set(key, first);
  }
  return params;
}

export function verifyReturn(input: VerifyReturnInput): ReturnFields {
  const params = toReturnParams(input.query);
  const signInfo = params.get('signInfo');
  if (!signInfo)
    throw new SignatureVerificationError('Return rejected: signInfo is missing', { code: 'RETURN_UNSIGNED' });
  const fields: Partial<Record<ReturnFieldName, string>> = {};
  for (const name of RETURN_FIELD_NAMES) fields[name] = params.get(name) ?? '';
  if (!safeEqualHex(signReturn(fields, input.signKey), signInfo)) {
    throw new SignatureVerificationError(
      'Return rejected: signInfo does not match (wrong sign key or edited query)',
    );
  }
  const parsed = safeParseFast(returnFieldsSchema, fields);
  if (!parsed.success) {
    throw new SignatureVerificationError('Return rejected: the signed fields are incomplete or malformed', {
      code: 'RETURN_MALFORMED',
    });
  }
  return parsed.data;
}
