import { z } from 'zod';

/** An integer setting read from the environment: coerced from its string, at least `min`, `def` when unset. */
export const envInt = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** The one way a validation failure is told: `path: message` per issue (the message alone at the root), at most `max`. */
export function zodIssues(error: z.ZodError, max = 20): string[] {
  return error.issues.slice(0, max).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
}

/** The issues on one line, for an error message or a 400's reason. */
export function formatZodError(error: z.ZodError, max?: number): string {
  return zodIssues(error, max).join('; ');
}
