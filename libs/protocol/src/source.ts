import { z } from 'zod';

/** A source the run actually retrieved: a corpus passage or a web page. `text` is what quotes are checked against. */
export const SourceSchema = z.strictObject({
  id: z.string().min(1).max(300),
  kind: z.enum(['passage', 'web']),
  title: z.string().max(500),
  url: z.string().max(2000).optional(),
  /** When the page was published or last updated, as the search engine gave it (free-form, e.g. "April 30, 2025"). */
  published: z.string().min(1).max(100).optional(),
  text: z.string().max(200_000),
});
export type Source = z.infer<typeof SourceSchema>;
