/** Turns zod failures into errors that name every bad field path and never echo the values. */
import type { z } from 'zod';
import { GatewayValidationError, ResponseValidationError, type ValidationIssue } from './errors.js';
import { safeParseFast } from './schemas/fast-forms.js';

export function issuesOf(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
}

function summary(issues: ValidationIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/** Parses caller input; throws GatewayValidationError before anything is sent. */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = safeParseFast(schema, input);
  if (parsed.success) return parsed.data;
  throw invalidInput(what, issuesOf(parsed.error));
}

/** Parses gateway output; returns the error instead of throwing so the caller can decide its class. */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  data: unknown,
  what: string,
  requestId: string,
): { ok: true; value: z.output<S> } | { ok: false; error: ResponseValidationError } {
  const parsed = safeParseFast(schema, data);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = issuesOf(parsed.error);
  return {
    ok: false,
    error: new ResponseValidationError(
      `Unexpected ${what} answer from the gateway: ${summary(issues)}`,
      issues,
      {
        requestId,
      },
    ),
  };
}

/** The error for input refused before sending: its message names every field and rule, never a value. */
export function invalidInput(what: string, issues: ValidationIssue[]): GatewayValidationError {
  return new GatewayValidationError(`Invalid ${what}: ${summary(issues)}`, issues);
}
