import { containsCardNumber, redactText } from '@gatewaykit/core';
import type { VendureConfig } from '@vendure/core';

type ApolloPlugin = NonNullable<VendureConfig['apiOptions']['apolloServerPlugins']>[number];

/** graphql-js writes the refused variable value into its message ("got invalid value {...}"). */
const ECHOED_VALUE = /got invalid value .*?(?= at "|; |$)/s;
/** "String cannot represent a non string value: <value>" and the like. */
const TRAILING_VALUE = /(cannot represent [^:;]*?): .*$/s;

/**
 * GraphQL answers a mistyped variable by echoing it back, card number and security code included
 * (the storefront sent them, but the answer is stored by proxies, logs and evidence files). Error
 * messages keep the field path and the rule, never the value; anything card-like left is replaced.
 */
export function withoutEchoedValues(message: string): string {
  const cleaned = redactText(
    message.replace(ECHOED_VALUE, 'got an invalid value').replace(TRAILING_VALUE, '$1'),
  );
  return containsCardNumber(cleaned) ? 'Invalid input' : cleaned;
}

/**
 * Error extensions as sent: never `stacktrace` (Apollo adds it whenever NODE_ENV is neither production
 * nor test, and its first line is the unredacted message, a mistyped card number or security code
 * included; the server's own log keeps the stack), and every other text cleaned as the message is.
 */
function withoutEchoedExtensions(
  extensions: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (!extensions) return undefined;
  const { stacktrace: _dropped, ...rest } = extensions;
  return cleanValue(rest) as Record<string, unknown>;
}

function cleanValue(value: unknown): unknown {
  if (typeof value === 'string') return withoutEchoedValues(value);
  if (Array.isArray(value)) return value.map(cleanValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cleanValue(inner)]));
  }
  return value;
}

export const redactErrorsPlugin: ApolloPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const errors = response.body.singleResult.errors;
        if (!errors?.length) return;
        response.body.singleResult.errors = errors.map((error) => {
          const extensions = withoutEchoedExtensions(error.extensions);
          return {
            ...error,
            message: withoutEchoedValues(error.message),
            ...(extensions ? { extensions } : {}),
          };
        });
      },
    };
  },
};
