import { z } from 'zod';

/**
 * The queues: the hub's own steps, the spokes' tasks, the jobs that index corpora into the passage store, and
 * webhook deliveries. None is
 * named `corpus`: that key space holds the corpora's ingest state (IngestState).
 */
export const QueueNameSchema = z.enum(['coordinator', 'subagents', 'ingest', 'webhooks', 'watches']);
export type QueueName = z.infer<typeof QueueNameSchema>;
export const COORDINATOR_QUEUE: QueueName = 'coordinator';
export const SUBAGENT_QUEUE: QueueName = 'subagents';
export const INGEST_QUEUE: QueueName = 'ingest';
/** Completion webhooks: one job per event, retried with backoff. */
export const WEBHOOK_QUEUE: QueueName = 'webhooks';
/** Watches: one job scheduler per watch, one job per run of it. */
export const WATCH_QUEUE: QueueName = 'watches';

/** A coordinator step job's payload. */
export const CoordinatorStepSchema = z.discriminatedUnion('step', [
  z.strictObject({ step: z.literal('plan'), runId: z.string() }),
  z.strictObject({ step: z.literal('round'), runId: z.string(), round: z.number().int().positive(), retry: z.number().int().positive().optional() }),
  z.strictObject({
    step: z.literal('resume'),
    runId: z.string(),
    /** 0: the answer to a plan review, before round 1. */
    round: z.number().int().nonnegative(),
    action: z.enum(['continue', 'stop']),
  }),
  /** Delayed by the run's autoApproveAfterSeconds: approves the plan proposed as `revision` N if nobody answered it. */
  z.strictObject({ step: z.literal('auto-approve'), runId: z.string(), revision: z.number().int().nonnegative() }),
  /** `attempt` N waits on the writer's N-th corrected draft (absent: the first draft). */
  z.strictObject({ step: z.literal('finalize'), runId: z.string(), attempt: z.number().int().positive().optional() }),
]);
export type CoordinatorStep = z.infer<typeof CoordinatorStepSchema>;
