/** The response envelope every API call answers with (API.md §2.1). */
import { z } from 'zod';

export const envelopeSchema = z.looseObject({
  code: z.union([z.string(), z.number()]).transform(String),
  message: z.string().nullish(),
  data: z.unknown(),
});

export type Envelope = z.output<typeof envelopeSchema>;

/** Hot-path reader of the envelope (same rules as envelopeSchema, without zod's per-call cost). */
export function readEnvelope(json: unknown): Envelope | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { code, message, data } = json as Record<string, unknown>;
  if (typeof code !== 'string' && typeof code !== 'number') return undefined;
  if (message !== undefined && message !== null && typeof message !== 'string') return undefined;
  return { ...(json as object), code: String(code), message: message as string | null | undefined, data };
}
