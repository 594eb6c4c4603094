/** The response envelope every API call answers with (API.md §2.1). */
import { z } from 'zod';

export const envelopeSchema = z.looseObject({
  code: z.union([z.string(), z.number()]).transform(String),
  message: z.string().nullish(),
  data: z.unknown(),
});

export type Envelope = z.output<typeof envelopeSchema>;
