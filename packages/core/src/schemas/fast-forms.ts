/**
 * Every schema has a fast form: zod's own ahead-of-time compiled clone (`z.compile`, zod ≥ 4.6). Valid
 * input takes the compiled path; refused input is parsed again by the schema itself, which decides and
 * writes the messages. Validation is on every request and answer, and zod's interpreted parse was the
 * largest share of the client's and the sandbox's per-call CPU.
 *
 * One wrinkle: cross-field rules (superRefine) that also run when a field already failed, so that one
 * error names every bad field, need zod's `when` option, and z.compile cannot compile a `when`. Such
 * schemas are therefore built twice from one definition (`withFastForm`): with `when` for the messages,
 * and without it for the fast form. The two accept exactly the same input: without field issues the
 * rules run either way, and with field issues both refuse.
 */
import { z } from 'zod';

/** Cross-field rules run even when some fields failed: one error names every bad field. */
export const EVEN_WITH_FIELD_ISSUES = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
};

/** How a schema's cross-field rules are attached: with EVEN_WITH_FIELD_ISSUES, or zod's default. */
export type RuleTiming = typeof EVEN_WITH_FIELD_ISSUES | undefined;

const fastForms = new WeakMap<z.ZodType, z.ZodType>();
/** Schemas built by withFastForm, and how to build their fast form's source (without `when`). */
const twinBuilds = new WeakMap<z.ZodType, () => z.ZodType>();
const compiledForms = new WeakSet<z.ZodType>();

function compiled<S extends z.ZodType>(schema: S): S {
  try {
    const fast = z.compile(schema, { strict: true });
    compiledForms.add(fast);
    return fast;
  } catch {
    // A construct z.compile does not model: the schema keeps zod's interpreted parser, still correct.
    return schema;
  }
}

/** Builds a schema with cross-field rules in both forms; returns the one for messages. */
export function withFastForm<S extends z.ZodType>(build: (timing: RuleTiming) => S): S {
  const checked = build(EVEN_WITH_FIELD_ISSUES);
  // Built and compiled on first use, like every fast form: importing core stays cheap.
  twinBuilds.set(checked, () => build(undefined));
  return checked;
}

/** The schema's fast form (compiled on first use). */
export function fastFormOf<S extends z.ZodType>(schema: S): S {
  let fast = fastForms.get(schema);
  if (fast === undefined) {
    fast = compiled(twinBuilds.get(schema)?.() ?? schema);
    fastForms.set(schema, fast);
  }
  return fast as S;
}

/** Whether the schema's fast form is compiled code rather than zod's interpreter (tests and bench). */
export function hasCompiledFastForm(schema: z.ZodType): boolean {
  return compiledForms.has(fastFormOf(schema));
}

/**
 * safeParse through the fast form. Refused input is parsed by the schema the fast form was compiled
 * from (zod does that itself), so the issues are the schema's own. A schema built by withFastForm is
 * parsed once more, in its form with cross-field rules even when fields failed: there a refused input
 * runs the rules three times, which is why rules must be pure (they only read the value).
 */
export function safeParseFast<S extends z.ZodType>(
  schema: S,
  input: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  const fast = fastFormOf(schema).safeParse(input);
  return fast.success || !twinBuilds.has(schema) ? fast : schema.safeParse(input);
}
