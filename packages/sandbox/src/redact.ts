/**
 * Redaction for everything the sandbox shows or logs. The rules live in @gatewaykit/core (one
 * implementation for client, adapters and sandbox); this module keeps the sandbox's import path.
 */
export { redact, redactBody, redactText } from '@gatewaykit/core';
