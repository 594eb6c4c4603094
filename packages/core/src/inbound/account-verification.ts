/**
 * Which configured merchant accounts a notification may belong to: those, among the accounts whose
 * gateway number it names, whose sign key verifies it. A store may hold several accounts (Medusa
 * provider entries, Vendure channels and methods); an outcome only ever changes an attempt of an
 * account that verified it (docs/SECURITY.md). Usually one verifies; entries that share credentials
 * (one merchant account behind two Medusa entries, e.g. two storefronts) all do, and the notification
 * belongs to the one holding its attempt (`accountHoldingAttempt`).
 */
import { SignatureVerificationError } from '../errors.js';

export interface InboundAccount {
  gatewayNo: string;
  signKey: string;
}

export interface VerifiedBy<Acc, T> {
  account: Acc;
  verified: T;
}

/** Every named account whose key verifies the notification, in configuration order; throws if none. */
export function verifyWithAccounts<Acc extends InboundAccount, T>(
  accounts: readonly Acc[],
  namedGatewayNo: string | undefined,
  verify: (account: Acc) => T,
): [VerifiedBy<Acc, T>, ...VerifiedBy<Acc, T>[]] {
  const named = namedGatewayNo
    ? accounts.filter((account) => account.gatewayNo === namedGatewayNo)
    : accounts;
  const verifiedBy: VerifiedBy<Acc, T>[] = [];
  // Made only when nothing verifies: an error's stack costs CPU on every callback otherwise.
  let failure: unknown;
  for (const account of named) {
    try {
      verifiedBy.push({ account, verified: verify(account) });
    } catch (error) {
      if (!(error instanceof SignatureVerificationError)) throw error;
      failure = error;
    }
  }
  const [first, ...others] = verifiedBy;
  if (first) return [first, ...others];
  throw (
    failure ??
    new SignatureVerificationError(
      'Notification rejected: no configured gateway account has the gateway number it names',
      { code: 'UNKNOWN_GATEWAY' },
    )
  );
}

/**
 * Of the accounts that verified a notification, the one whose store holds the attempt it names (the
 * first when none does, or when it names none). One account costs no read.
 */
export async function accountHoldingAttempt<Acc, T>(
  verifiedBy: readonly [VerifiedBy<Acc, T>, ...VerifiedBy<Acc, T>[]],
  orderNo: string | undefined,
  holds: (account: Acc, orderNo: string) => Promise<boolean>,
): Promise<VerifiedBy<Acc, T>> {
  if (verifiedBy.length === 1 || !orderNo) return verifiedBy[0];
  for (const candidate of verifiedBy) {
    if (await holds(candidate.account, orderNo)) return candidate;
  }
  return verifiedBy[0];
}
