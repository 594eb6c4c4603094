import { describe, expect, it } from 'vitest';
import { redactErrorsPlugin, withoutEchoedValues } from '../src/api/redact-errors.plugin';

describe('GraphQL error messages never echo a refused value', () => {
  it('drops the value graphql-js echoes for an unknown field, keeping the rule', () => {
    const message =
      'Variable "$input" got invalid value { paymentMethodCode: "gatewaykit-card", card: { cardNo: "4242424242424242", cardExpireMonth: "12", cardExpireYear: "2028", cardSecurityCode: "987" }, note: "x" }; Field "note" is not defined by type "GatewaykitStartPaymentInput".';
    const cleaned = withoutEchoedValues(message);
    expect(cleaned).toBe(
      'Variable "$input" got an invalid value; Field "note" is not defined by type "GatewaykitStartPaymentInput".',
    );
  });

  it('drops a mistyped value, keeping the path', () => {
    const message =
      'Variable "$input" got invalid value 4242424242424242 at "input.card.cardNo"; String cannot represent a non string value: 4242424242424242';
    expect(withoutEchoedValues(message)).toBe(
      'Variable "$input" got an invalid value at "input.card.cardNo"; String cannot represent a non string value',
    );
  });

  it('replaces any other message that still holds a card number', () => {
    expect(withoutEchoedValues('something about 4242 4242 4242 4242 here')).not.toMatch(
      /4242 4242 4242 4242/,
    );
    expect(withoutEchoedValues('Invalid input: card.cardNo must be 13 to 19 digits')).toBe(
      'Invalid input: card.cardNo must be 13 to 19 digits',
    );
  });
});

describe('the response hook of redactErrorsPlugin', () => {
  /** Runs the plugin's willSendResponse on one GraphQL error, as Apollo would before sending it. */
  async function sent(error: { message: string; extensions?: Record<string, unknown> }) {
    const hooks = await redactErrorsPlugin.requestDidStart?.({} as never);
    const response = { body: { kind: 'single', singleResult: { errors: [error] } } };
    await hooks?.willSendResponse?.({ response } as never);
    return response.body.singleResult.errors[0];
  }

  const typed = 'String cannot represent a non string value: 4242424242424242 (cardSecurityCode: 987)';

  it('attack: a stack trace whose first line holds a mistyped card number and security code is not sent', async () => {
    const out = await sent({
      message: 'String cannot represent a non string value: 4242424242424242',
      extensions: {
        code: 'GRAPHQL_VALIDATION_FAILED',
        stacktrace: [
          `GraphQLError: ${typed}`,
          '    at isValidValueNode (/app/node_modules/graphql/validation.js:1:1)',
        ],
      },
    });
    const text = JSON.stringify(out);
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toContain('987');
    expect(out?.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(out?.message).toBe('String cannot represent a non string value');
  });

  it('attack: card numbers in any other extension text are cleaned like the message', async () => {
    const out = await sent({
      message: 'Bad input',
      extensions: { code: 'BAD_USER_INPUT', detail: { values: ['card 4242 4242 4242 4242'] } },
    });
    expect(JSON.stringify(out)).not.toMatch(/4242 4242 4242 4242/);
    expect(out?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('honest: an error without card data keeps its message and code', async () => {
    const out = await sent({ message: 'Order not found', extensions: { code: 'FORBIDDEN' } });
    expect(out).toEqual({ message: 'Order not found', extensions: { code: 'FORBIDDEN' } });
  });
});
