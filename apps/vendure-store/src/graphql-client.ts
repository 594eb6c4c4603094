/** Minimal GraphQL-over-HTTP client (bearer auth, channel token) for setup scripts and tests. */
export class GraphqlClient {
  /** Sees every response body (tests keep them as evidence for the card-data scan). */
  static onResponse: ((url: string, body: unknown) => void) | undefined;

  authToken: string | undefined;

  constructor(
    readonly url: string,
    public channelToken?: string,
  ) {}

  async query<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<T> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.authToken) headers.authorization = `Bearer ${this.authToken}`;
    if (this.channelToken) headers['vendure-token'] = this.channelToken;
    const res = await fetch(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    const token = res.headers.get('vendure-auth-token');
    if (token) this.authToken = token;
    const body = (await res.json()) as { data?: T; errors?: { message: string }[] };
    GraphqlClient.onResponse?.(this.url, body);
    if (body.errors?.length) {
      throw new Error(`GraphQL error: ${body.errors.map((e) => e.message).join('; ')}`);
    }
    if (!body.data) throw new Error(`GraphQL: no data (HTTP ${res.status})`);
    return body.data;
  }

  withChannel(channelToken: string | undefined): GraphqlClient {
    const copy = new GraphqlClient(this.url, channelToken);
    copy.authToken = this.authToken;
    return copy;
  }
}

export async function loginAdmin(
  adminUrl: string,
  username = 'superadmin',
  password = 'superadmin',
): Promise<GraphqlClient> {
  const client = new GraphqlClient(adminUrl);
  const res = await client.query<{ login: { __typename: string } }>(
    `mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { __typename } }`,
    { u: username, p: password },
  );
  if (res.login.__typename !== 'CurrentUser') throw new Error(`Admin login failed: ${res.login.__typename}`);
  return client;
}
