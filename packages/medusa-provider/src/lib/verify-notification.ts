import {
  type ReturnQuery,
  readHeader,
  SignatureVerificationError,
  type VerifiedCallback,
  verifyCallback,
  verifyReturn,
} from '@gatewaykit/core';
import type { GatewaykitAccount } from './resolve-options';

type ReturnFields = ReturnType<typeof verifyReturn>;

/**
 * Tries the accounts whose gateway number the notification names; the first whose key verifies it is
 * the one it belongs to. Throws the verification error of the last try when none does.
 */
function firstVerified<T>(
  accounts: GatewaykitAccount[],
  gatewayNo: string | undefined,
  verify: (account: GatewaykitAccount) => T,
): { account: GatewaykitAccount; verified: T } {
  const named = accounts.filter((account) => account.options.gatewayNo === gatewayNo);
  let failure: unknown = new SignatureVerificationError(
    'no configured gateway account has this gateway number',
  );
  for (const account of named) {
    try {
      return { account, verified: verify(account) };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

export function verifyCallbackFor(
  accounts: GatewaykitAccount[],
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined>,
): { account: GatewaykitAccount; event: VerifiedCallback } {
  const { account, verified } = firstVerified(accounts, readHeader(headers, 'gateway-no'), (candidate) =>
    verifyCallback({
      rawBody,
      headers: headers as Record<string, string>,
      gatewayNo: candidate.options.gatewayNo,
      signKey: candidate.options.signKey,
    }),
  );
  return { account, event: verified };
}

export function verifyReturnFor(
  accounts: GatewaykitAccount[],
  query: URLSearchParams,
): { account: GatewaykitAccount; fields: ReturnFields } {
  const { account, verified } = firstVerified(accounts, query.get('gatewayNo') ?? undefined, (candidate) =>
    verifyReturn({ query: query as ReturnQuery, signKey: candidate.options.signKey }),
  );
  return { account, fields: verified };
}
