import { z } from 'zod';
import { DecisionSchema } from './decision';
import { FindingSchema } from './finding';
import { CorpusNameSchema, ResolvedEngineSchema, TaskIdSchema } from './names';
import { AnswerFormSchema, AuthorsSchema, ReportShapeSchema, RequestClassSchema, SubtopicSideSchema, YearWindowSchema } from './plan';
import { SourceSchema } from './source';
import { SubagentReportSchema } from './subagent-report';

/** Everything a subagent knows about its job. Nothing else is shared with it. */
export const TaskContextSchema = z.strictObject({
  objective: z.string().min(1).max(4000),
  /** The run's topic, so a subagent can keep its findings on it (the precision guard). */
  topic: z.string().min(1).max(4000),
  scope: z.strictObject({
    include: z.array(z.string().max(200)).max(50),
    exclude: z.array(z.string().max(200)).max(200),
    /** Years to leave out (the plan's excludeYears). */
    excludeYears: z.array(YearWindowSchema).max(20).optional(),
    /** The only authors whose documents are searched (the plan's authors). */
    authors: AuthorsSchema.optional(),
  }),
  outputFormat: z.string().max(2000),
  sourceGuidance: z.string().max(2000),
  /** Questions the lead wants answered (its brief), if it wrote any. */
  keyQuestions: z.array(z.string().max(300)).max(8).optional(),
  /** Excerpts the coordinator chose to forward; may be empty. */
  excerpts: z.array(z.strictObject({ sourceId: z.string(), text: z.string().max(10_000) })).max(200),
  /** A correction from a previous attempt's verdict, so the same mistake is not made twice. */
  correction: z.string().max(2000).optional(),
  /** The question's shape from the plan, so a subagent does not read it again (absent in older jobs). */
  shape: ReportShapeSchema.optional(),
});
export type TaskContext = z.infer<typeof TaskContextSchema>;

/**
 * One task's share of what its run has left, set by the coordinator at dispatch. The engine stops gracefully at it
 * (a `budget-stop` decision) and returns what it has, so a run overshoots its budget by at most one task's share.
 * Tokens count as the run's budget counts them: input, output, cache reads and cache writes.
 */
export const TaskBudgetSchema = z.strictObject({
  maxTokens: z.number().int().nonnegative(),
  maxToolCalls: z.number().int().nonnegative(),
  maxCostUsd: z.number().nonnegative(),
  /** The run's wall-clock deadline. */
  deadline: z.iso.datetime(),
});
export type TaskBudget = z.infer<typeof TaskBudgetSchema>;

const TaskBaseSchema = z.strictObject({
  taskId: TaskIdSchema,
  runId: z.string(),
  round: z.number().int().nonnegative(),
  engine: ResolvedEngineSchema,
  corpus: CorpusNameSchema.optional(),
  context: TaskContextSchema,
  /** Absent only in tasks built outside a run (tests, tools): the engine's own limits apply. */
  budget: TaskBudgetSchema.optional(),
});

export const SearchTaskSchema = TaskBaseSchema.extend({
  kind: z.literal('search'),
  subtopicId: z.string(),
  /** The side of the comparison its subtopic researches, from the plan. */
  side: SubtopicSideSchema.optional(),
  query: z.string().min(1).max(1000),
  maxFindings: z.number().int().positive().max(100),
  /** Sources already in the ledger; a search should prefer new ones. */
  knownSourceIds: z.array(z.string()).max(5000),
});
export type SearchTask = z.infer<typeof SearchTaskSchema>;

export const SynthesisInputSectionSchema = z.strictObject({
  subtopicId: z.string(),
  title: z.string(),
  findings: z.array(FindingSchema).max(500),
});

/**
 * What the lead writes from besides the findings: its plan's class, reasoning and objectives, the form it chose, the
 * question's language, and each researcher's condensed report.
 */
export const WriterBriefSchema = z.strictObject({
  classification: RequestClassSchema,
  answerForm: AnswerFormSchema,
  /** BCP 47. */
  language: z.string().min(2).max(35),
  rationale: z.string().max(2000),
  objectives: z.array(z.strictObject({ subtopicId: z.string(), title: z.string().max(300), objective: z.string().max(1000) })).max(60),
  reports: z.array(z.strictObject({ taskId: z.string(), subtopicId: z.string().optional(), report: SubagentReportSchema })).max(200),
});
export type WriterBrief = z.infer<typeof WriterBriefSchema>;

export const SynthesizeTaskSchema = TaskBaseSchema.extend({
  kind: z.literal('synthesize'),
  sections: z.array(SynthesisInputSectionSchema).max(60),
  /** The sources the writer may cite: exactly the ledger entries the findings name. */
  sources: z.array(SourceSchema).max(5000),
  /** The report cites at most this many distinct sources. */
  maxCitations: z.number().int().positive().max(200),
  /** Present when the run's lead writes the report (a Claude run). */
  brief: WriterBriefSchema.optional(),
});
export type SynthesizeTask = z.infer<typeof SynthesizeTaskSchema>;

export const SubagentTaskSchema = z.discriminatedUnion('kind', [SearchTaskSchema, SynthesizeTaskSchema]);
export type SubagentTask = z.infer<typeof SubagentTaskSchema>;
export type TaskKind = SubagentTask['kind'];

/** What a subagent reports through BullMQ job progress; the coordinator republishes it. */
export const TaskProgressSchema = z.strictObject({
  taskId: z.string(),
  stage: z.string().max(100),
  message: z.string().max(500),
  fraction: z.number().min(0).max(1).optional(),
  /** With stage `decision:<type>`: the decision an engine took inside the task; the coordinator logs it. */
  decision: DecisionSchema.pick({ decisionType: true, level: true, confidence: true, conclusion: true, signals: true }).optional(),
});
export type TaskProgress = z.infer<typeof TaskProgressSchema>;
