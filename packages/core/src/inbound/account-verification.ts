/**
 * Which configured merchant account a notification belongs to: the first, among the accounts whose
 * gateway number it names, whose sign key verifies it. A store may hold several accounts (Medusa
 * provider entries, Vendure channels and methods); an outcome only ever changes an attempt of the
 * account that verified it (docs/SECURITY.md).
 */
import { SignatureVerificationError } from '../errors.js';

export interface InboundAccount {
  gatewayNo: string;
  signKey: string;
}

export function verifyWithAccounts<Acc extends InboundAccount, T>(
  accounts: readonly Acc[],
  namedGatewayNo: string | undefined,
  verify: (account: Acc) => T,
): { account: Acc; verified: T } {
  const named = namedGatewayNo
    ? accounts.filter((account) => account.gatewayNo === namedGatewayNo)
    : accounts;
  // Made only when nothing verifies: an error's stack costs CPU on every callback otherwise.
  let failure: unknown;
  for (const account of named) {
    try {
      return { account, verified: verify(account) };
    } catch (error) {
      if (!(error instanceof SignatureVerificationError)) throw error;
      failure = error;
    }
  }
  throw (
    failure ??
    new SignatureVerificationError(
      'Notification rejected: no configured gateway account has the gateway number it names',
      { code: 'UNKNOWN_GATEWAY' },
    )
  );
}
