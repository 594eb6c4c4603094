import type { Sandbox } from '@gatewaykit/sandbox';
import type { GraphqlClient } from '../../src/graphql-client';
import { keepResponse } from './evidence';

export interface RawGraphqlResponse {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

/** One GraphQL request as an attacker sends it: any variables, the raw HTTP status and body back. */
export async function rawGraphql(
  client: GraphqlClient,
  query: string,
  variables: unknown,
): Promise<RawGraphqlResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (client.authToken) headers.authorization = `Bearer ${client.authToken}`;
  if (client.channelToken) headers['vendure-token'] = client.channelToken;
  const res = await fetch(client.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  const token = res.headers.get('vendure-auth-token');
  if (token) client.authToken = token;
  const body = (await res.json()) as RawGraphqlResponse['body'];
  keepResponse(client.url, body);
  return { status: res.status, body };
}

/** True when the server failed on its own side (what an attacker must never be able to cause). */
export function isServerFailure(response: RawGraphqlResponse): boolean {
  return (
    response.status >= 500 ||
    (response.body.errors ?? []).some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR')
  );
}

/** Gateway requests the sandbox received for one Vendure order (its attempts' orderNos start with the code). */
export function gatewayRequests(sandbox: Sandbox, orderCode: string, operation?: string) {
  return sandbox
    .requests()
    .filter(
      (r) =>
        (operation === undefined || r.operation === operation) &&
        (r.body ?? '').includes(`"orderNo":"${orderCode}-`),
    );
}

/** Every money-moving request for the order: a charge, a hosted page or a local payment. */
export function paymentRequests(sandbox: Sandbox, orderCode: string) {
  return gatewayRequests(sandbox, orderCode).filter((r) =>
    ['confirmCharge', 'checkoutPayment', 'localPayment'].includes(r.operation ?? ''),
  );
}
