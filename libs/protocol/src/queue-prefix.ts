import { z } from 'zod';
import { formatZodError } from './validation';

/**
 * `QUEUE_PREFIX`: the name of one deployment in Redis (its queues and keys) and on disk (its default store's folder).
 * Every process of a deployment reads it, so every one validates it with this schema.
 */
export const QueuePrefixSchema = z.string().regex(/^[a-zA-Z0-9_-]+$/, 'must be letters, digits, _ and -').default('orrery');
export type QueuePrefix = z.infer<typeof QueuePrefixSchema>;

/** The deployment's `QUEUE_PREFIX` from the environment; a bad value is an error that names the variable. */
export function loadQueuePrefix(env: NodeJS.ProcessEnv = process.env): QueuePrefix {
  const parsed = z.object({ QUEUE_PREFIX: QueuePrefixSchema }).safeParse({ QUEUE_PREFIX: env.QUEUE_PREFIX });
  if (!parsed.success) throw new Error(`invalid configuration: ${formatZodError(parsed.error)}`);
  return parsed.data.QUEUE_PREFIX;
}
