import { z } from 'zod';
import { DecisionSchema } from './decision';
import { PlanSchema } from './plan';
import { RunWaitingSchema } from './provider-outage';
import { RunStatusSchema } from './run';

const base = { runId: z.string(), ts: z.iso.datetime() };

export const RunEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...base, type: z.literal('run.created'), topic: z.string(), engine: z.string(), corpus: z.string().optional() }),
  z.strictObject({ ...base, type: z.literal('run.status'), status: RunStatusSchema }),
  z.strictObject({ ...base, type: z.literal('plan.ready'), plan: PlanSchema }),
  z.strictObject({
    ...base,
    type: z.literal('round.started'),
    round: z.number().int(),
    tasks: z.array(z.strictObject({ taskId: z.string(), kind: z.string(), subtopicId: z.string().optional(), title: z.string() })),
  }),
  z.strictObject({ ...base, type: z.literal('task.progress'), round: z.number().int(), taskId: z.string(), stage: z.string(), message: z.string() }),
  z.strictObject({
    ...base,
    type: z.literal('task.completed'),
    round: z.number().int(),
    taskId: z.string(),
    findings: z.number().int(),
    newSources: z.number().int(),
  }),
  z.strictObject({ ...base, type: z.literal('task.failed'), round: z.number().int(), taskId: z.string(), error: z.string() }),
  z.strictObject({
    ...base,
    type: z.literal('round.completed'),
    round: z.number().int(),
    newFindings: z.number().int(),
    newSources: z.number().int(),
    novelty: z.number(),
    coverage: z.number(),
  }),
  z.strictObject({ ...base, type: z.literal('decision'), decision: DecisionSchema }),
  /** The spend rate so far projects past the budget in the next round, before the wrap-up threshold can act; `phase` is the one spending most. */
  z.strictObject({ ...base, type: z.literal('budget.warning'), round: z.number().int(), dimension: z.string(), left: z.number(), perRound: z.number(), phase: z.string().optional() }),
  z.strictObject({ ...base, type: z.literal('report.ready'), sections: z.number().int(), citations: z.number().int() }),
  /** The model provider is down (its breaker is open): the run's model work waits for it, nothing is counted failed. */
  z.strictObject({ ...base, type: z.literal('run.waiting'), waiting: RunWaitingSchema }),
  /** The breaker's probe got through: the run goes on. */
  z.strictObject({ ...base, type: z.literal('run.resumed'), outageId: z.string(), waitedMs: z.number().int().nonnegative() }),
  z.strictObject({ ...base, type: z.literal('run.finished'), status: RunStatusSchema, error: z.string().optional() }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];
/** A run event as served: with the Redis Stream entry id, which is also the SSE id. */
export type StoredRunEvent = RunEvent & { id: string };
