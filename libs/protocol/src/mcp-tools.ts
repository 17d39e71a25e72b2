import { z } from 'zod';
import { ResearchRequestSchema } from './research-request';
import { CorpusNameSchema } from './names';
import { RunStatusSchema } from './run';
import { BudgetRequestSchema } from './budget';
import { PlanFeedbackSchema, PlanSchema } from './plan';
import { WatchRequestSchema } from './watch';

const runId = z.uuid({ version: 'v4', message: 'id must be a run id (a UUID) that research returned' });
const text = (what: string, max: number) => z.string({ message: `${what} must be a string` }).trim().min(1, `${what} must not be empty`).max(max, `${what} must have at most ${max} characters`);
const signal = z.enum(['continue', 'stop', 'pivot']);

/** The largest body /mcp reads: any legal tool call fits; more is refused with 413 before it is read. */
export const MCP_BODY_LIMIT_BYTES = 256 * 1024;

/** The MCP tools' arguments (agents call them over stdio or /mcp). Field names follow the MCP convention: snake_case. */
export const ResearchToolInputSchema = ResearchRequestSchema.omit({ coverageCheck: true }).extend({
  /** A follow-up on this finished run of yours: the topic is the question, researched on top of its sources and findings. */
  parent: runId.optional(),
  /** Block until the run ends (or `timeout_seconds`), sending progress notifications, and return the report. */
  wait: z.boolean().default(false),
  timeout_seconds: z.number().int().min(1).max(3600).default(600),
  /** With `wait`: cancel the run when the client goes away or cancels the call. Off by default: the run goes on. */
  cancel_on_disconnect: z.boolean().default(false),
});
export type ResearchToolInput = z.infer<typeof ResearchToolInputSchema>;

export const RunIdToolInputSchema = z.strictObject({ id: runId });
/** The answer to a run in needs_review (POST …/decision): for a plan review, `plan` dispatches an edited plan. */
export const AnswerReviewToolInputSchema = z.strictObject({
  id: runId,
  action: z.enum(['continue', 'stop', 'revise']),
  plan: PlanSchema.optional(),
  /** With `revise`: what to change, in words ("leave out the 1800s; add tariffs"). */
  feedback: PlanFeedbackSchema.optional(),
  extra_budget: BudgetRequestSchema.optional(),
});
export const GetReportToolInputSchema = z.strictObject({ id: runId, format: z.enum(['markdown', 'json']).default('markdown') });
/** The report's formats to hand on that an agent gets as an embedded resource (`export_report`). */
export const ReportFileFormatSchema = z.enum(['html', 'docx', 'pdf'], { message: 'format must be html, docx or pdf' });
export type ReportFileFormat = z.infer<typeof ReportFileFormatSchema>;
export const ExportReportToolInputSchema = z.strictObject({ id: runId, format: ReportFileFormatSchema });
export const ListRunsToolInputSchema = z.strictObject({ limit: z.number().int().min(1).max(200).default(20), status: RunStatusSchema.optional() });

/**
 * The judge reads compact signals, so each field has a bound (documented in docs/mcp.md): the model sees the goal, the
 * summary and each result clipped to 300 characters; the rules compare actions and results as keys. The largest legal
 * call fits MCP_BODY_LIMIT_BYTES even written in 3-byte UTF-8.
 */
export const JUDGE_LIMITS = { goal: 4000, stateSummary: 8000, actions: 50, action: 500, result: 500, history: 500 } as const;
const L = JUDGE_LIMITS;
export const JudgeToolInputSchema = z.strictObject({
  goal: text('goal', L.goal),
  step: z.number().int().min(0),
  recent_actions: z
    .array(
      z.union([
        text('recent_actions[]', L.action),
        z.strictObject({
          action: text('recent_actions[].action', L.action),
          result: z.string().max(L.result, `recent_actions[].result must have at most ${L.result} characters`).optional(),
          new_information: z.boolean().optional(),
        }),
      ]),
    )
    .max(L.actions, `recent_actions must have at most ${L.actions} items`)
    .optional(),
  state_summary: z.string({ message: 'state_summary must be a string' }).max(L.stateSummary, `state_summary must have at most ${L.stateSummary} characters`),
  history: z
    .array(z.union([signal, z.strictObject({ step: z.number().int().min(0), signal })]))
    .max(L.history, `history must have at most ${L.history} items`)
    .optional(),
  state_version: z.number().int().min(0).optional(),
  max_steps: z.number().int().min(1).optional(),
});
export type JudgeToolInput = z.infer<typeof JudgeToolInputSchema>;

/** The ChatGPT connector convention: search(query) → ranked ids; fetch(id) → the passage. */
export const CorpusSearchToolInputSchema = z.strictObject({ query: text('query', 2000), corpus: CorpusNameSchema.optional(), limit: z.number().int().min(1).max(50).default(10) });
export const CorpusFetchToolInputSchema = z.strictObject({ id: text('id', 512), corpus: CorpusNameSchema.optional() });

/** `create_watch`: POST /v1/watches as a tool. */
export const CreateWatchToolInputSchema = WatchRequestSchema.omit({ budget: true });
/** The watch tools that name one watch. */
export const WatchIdToolInputSchema = z.strictObject({ id: z.uuid({ version: 'v4', message: 'id must be a watch id that create_watch returned' }) });
export const WatchActionToolInputSchema = WatchIdToolInputSchema.extend({ action: z.enum(['pause', 'resume', 'delete']) });
