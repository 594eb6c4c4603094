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

export const redactErrorsPlugin: ApolloPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const errors = response.body.singleResult.errors;
        if (!errors?.length) return;
        response.body.singleResult.errors = errors.map((error) => ({
          ...error,
          message: withoutEchoedValues(error.message),
        }));
      },
    };
  },
};
