import { describe, expect, it } from 'vitest';
import { withoutEchoedValues } from '../src/api/redact-errors.plugin';

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
