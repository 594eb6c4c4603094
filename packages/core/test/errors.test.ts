import { describe, expect, it } from 'vitest';
import {
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayValidationError,
  SignatureVerificationError,
  UnknownOutcomeError,
} from '../src/index.js';

const leaky = 'gateway said: cardNo 4111111111111111 cvv 123';

describe('error messages', () => {
  it.each([
    ['GatewayError', () => new GatewayError(leaky)],
    ['GatewayApiError', () => new GatewayApiError(leaky)],
    ['GatewayConnectionError', () => new GatewayConnectionError(leaky)],
    ['GatewayValidationError', () => new GatewayValidationError(leaky, [])],
    ['UnknownOutcomeError', () => new UnknownOutcomeError(leaky, 'confirmCharge')],
    ['SignatureVerificationError', () => new SignatureVerificationError(leaky)],
  ])('%s never carries a card number or security code, whoever built the message', (_name, build) => {
    const { message } = build();
    expect(message).not.toContain('4111111111111111');
    expect(message).not.toMatch(/cvv 123/);
    // The rest of the message is kept.
    expect(message).toContain('gateway said');
  });
});
