import { redactText } from '@gatewaykit/core';
import {
  errorHandler,
  type MedusaNextFunction,
  type MedusaRequest,
  type MedusaResponse,
} from '@medusajs/framework/http';

type ErrorHandler = (
  error: unknown,
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction,
) => void;

/**
 * Medusa's own error handler, with every error's message redacted first (docs/SECURITY.md §3). Medusa's
 * JSON body parser puts the start of a body it cannot parse into its message, and Medusa answers and
 * logs that message: a card number sent as a bare body (`4242…`, by a broken client or on purpose)
 * came back in the 400 answer and into the log before any route of the plugin ran. Medusa keeps one
 * error handler for the whole app (the last middlewares file that sets one wins); a store with its
 * own passes it here to keep the redaction: `redactingErrorHandler(itsHandler)`.
 */
export function redactingErrorHandler(handler: ErrorHandler = errorHandler()): ErrorHandler {
  return (error, req, res, next) => {
    redactError(error);
    handler(error, req, res, next);
  };
}

/** How deep a chain of causes is redacted. */
const CAUSE_DEPTH = 5;

/**
 * Redacts an error's message, its stack (Medusa logs a server error with it; the stack's first line
 * repeats the message as it was when the stack was first read) and its causes.
 */
function redactError(error: unknown): void {
  let current = error;
  for (let depth = 0; depth < CAUSE_DEPTH && current instanceof Error; depth++) {
    const redacted = redactText(current.message);
    if (redacted !== current.message) current.message = redacted;
    if (typeof current.stack === 'string') {
      const stack = redactText(current.stack);
      if (stack !== current.stack) current.stack = stack;
    }
    current = (current as { cause?: unknown }).cause;
  }
}
