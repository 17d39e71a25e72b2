import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { AnswerReviewToolInputSchema, GetReportToolInputSchema, ListRunsToolInputSchema, ResearchToolInputSchema, type ResearchToolInput, RunIdToolInputSchema } from '@orrery/protocol';
import type { Run } from '@orrery/protocol';
import { billOf, sumBills } from '@orrery/engine';
import type { Principal } from '../auth/principal';
import type { RunStream, RunStreamsService } from '../runs/run-streams.service';
import { QuotaExceededError } from '../quotas/quota-exceeded.error';
import { reportToMarkdown } from '../report/report-markdown';
import type { RunsService } from '../runs/runs.service';
import type { RunWaitingService } from '../breaker/run-waiting.service';
import { reviewPlanByElicitation } from './plan-elicitation';
import { progressMessage } from './run-progress';
import { jsonResult, textResult } from './tool-results';

export interface ResearchToolDeps {
  principal: Principal;
  runs: RunsService;
  streams: RunStreamsService;
  waiting: RunWaitingService;
  /** The server lives in an MCP session, so it can ask its client something mid-call. */
  session: boolean;
}

/** research, research_status, get_report, cancel_research, list_runs: the REST API's run routes, as tools. */
export function registerResearchTools(server: McpServer, deps: ResearchToolDeps): void {
  const { principal, runs, streams, waiting } = deps;
  // A plan review is asked of the person (elicitation) only by a session whose client said it can show a form.
  const canElicit = () => deps.session && server.server.getClientCapabilities()?.elicitation?.form !== undefined;

  server.registerTool(
    'research',
    {
      description:
        'Start a research run on a topic (corpus engine over a named corpus, or Claude). Returns the run id at once; with wait: true, blocks until the run ends (or timeout_seconds), sends progress notifications (plan, tasks done, rounds, coverage) and returns the cited Markdown report. With review: "plan", the run stops before dispatching and (with wait) returns its proposed plan: approve or edit it with answer_review; a client in an MCP session that supports elicitation is asked instead to approve, revise (in words, as often as wanted) or stop it, and the call goes on to the report. A run that pauses for review returns what it waits on. A client that disconnects does not cancel the run unless cancel_on_disconnect is true. With wait, a key that already follows as many event streams as it may is refused before any run starts.',
      inputSchema: ResearchToolInputSchema,
      annotations: { openWorldHint: true },
    },
    async (args, ctx) => {
      const { wait, timeout_seconds, cancel_on_disconnect, parent, ...request } = args;
      const start = () => {
        if (!parent) return runs.create(principal, request);
        const { topic, engine: _engine, corpus: _corpus, ...rest } = request;
        return runs.followUp(principal, parent, { question: topic, ...rest });
      };
      if (!wait) {
        const run = await start();
        return jsonResult({ id: run.id, status: run.status, report: `orrery://runs/${run.id}/report` });
      }
      // The stream's place before the run: past the key's stream cap the call fails having started nothing, so an
      // agent that retries (or calls without wait) never leaves behind a run whose id it was not told.
      const place = await streams.reserve(principal).catch((err: unknown) => {
        throw err instanceof QuotaExceededError ? new Error(`${err.message}; no run was started: retry later, or call research without wait and follow it with research_status`) : err;
      });
      let id: string;
      try {
        id = (await start()).id;
      } catch (err) {
        place.release();
        throw err;
      }
      return waitForReport(deps, id, place.follow(id), { timeoutSeconds: timeout_seconds, cancelOnDisconnect: cancel_on_disconnect, elicit: canElicit() }, ctx);
    },
  );

  server.registerTool(
    'research_status',
    { description: "A run's status (with `waiting`, the reason and since when, while it waits on the model provider), rounds, counters, coverage, errors and its itemised bill (by phase, by model, web searches and fetches, the cache's saving).", inputSchema: RunIdToolInputSchema, annotations: { readOnlyHint: true } },
    async ({ id }) => {
      const run = await waiting.view(await runs.get(principal, id));
      const last = run.rounds.at(-1);
      return jsonResult({
        id: run.id,
        topic: run.topic,
        status: run.status,
        ...(run.waiting ? { waiting: run.waiting } : {}),
        engine: run.engine,
        ...(run.corpus ? { corpus: run.corpus } : {}),
        rounds: run.rounds.length,
        coverage: last?.coverage ?? null,
        counters: run.counters,
        errors: run.errors.map((e) => e.message),
        bill: billOf(run.usage),
        ...reviewOf(run),
        createdAt: run.createdAt,
        ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}),
      });
    },
  );

  server.registerTool(
    'answer_review',
    {
      description:
        'Answer a run in needs_review. After a plan review (research with review: "plan"), continue dispatches the proposed plan, or the edited `plan` you pass (checked: scopes must not overlap, round 1 must fit the budget; a refusal says why and changes nothing); stop cancels it; revise with `feedback` in words ("leave out the 1800s; add tariffs") returns the revised plan, which waits again. After a judge review, continue (optionally with extra_budget) or stop and report. extra_budget lifts a run at most to the server\'s default budget and what this key\'s daily quotas have left (an admin key: up to the hard caps); more is refused with the most that may be added.',
      inputSchema: AnswerReviewToolInputSchema,
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    async ({ id, action, plan, extra_budget, feedback }) => {
      if (action === 'revise') {
        if (!feedback) throw new Error('feedback: revise takes feedback in words');
        const run = await runs.decide(principal, id, { action, feedback });
        return jsonResult({ id: run.id, status: run.status, proposedPlan: run.proposedPlan, revision: run.planRevisions?.at(-1) });
      }
      const run = await runs.decide(principal, id, { action, ...(plan ? { plan } : {}), ...(extra_budget ? { extraBudget: extra_budget } : {}) });
      return jsonResult({ id: run.id, status: run.status });
    },
  );

  server.registerTool(
    'get_report',
    { description: "A finished run's cited report, as Markdown (default) or JSON.", inputSchema: GetReportToolInputSchema, annotations: { readOnlyHint: true } },
    async ({ id, format }) => {
      const report = await runs.report(principal, id);
      if (!report) throw new Error(`the report of run ${id} is not ready: the run is ${(await runs.get(principal, id)).status}`);
      return format === 'json' ? jsonResult(report as unknown as Record<string, unknown>) : textResult(reportToMarkdown(report));
    },
  );

  server.registerTool(
    'cancel_research',
    { description: 'Cancel a run, in any state; a finished run is answered as it is.', inputSchema: RunIdToolInputSchema, annotations: { destructiveHint: true, idempotentHint: true } },
    async ({ id }) => {
      const run = await runs.cancel(principal, id);
      return jsonResult({ id: run.id, status: run.status });
    },
  );

  server.registerTool(
    'list_runs',
    { description: "The caller's own runs, newest first (optionally of one status).", inputSchema: ListRunsToolInputSchema, annotations: { readOnlyHint: true } },
    async ({ limit, status }) => {
      const listed = await runs.list(principal, { limit, ...(status ? { status } : {}) });
      return jsonResult({ runs: listed, bill: sumBills(listed.map((r) => billOf(r.usage))) });
    },
  );
}

/** What a run in needs_review waits on: the plan to approve, or the judge's review summary. */
function reviewOf(run: Run): Record<string, unknown> {
  if (run.status !== 'needs_review') return {};
  return run.proposedPlan ? { proposedPlan: run.proposedPlan } : run.review ? { review: run.review } : {};
}

/** Follows the run's events to its end (or the timeout), one progress notification per event worth telling. */
async function waitForReport(
  deps: ResearchToolDeps,
  id: string,
  stream: RunStream,
  opts: { timeoutSeconds: number; cancelOnDisconnect: ResearchToolInput['cancel_on_disconnect']; elicit: boolean },
  ctx: ServerContext,
) {
  const { principal, runs } = deps;
  const token = ctx.mcpReq._meta?.progressToken;
  // Aborted when the call's HTTP request closes: the client went away.
  const signal = ctx.mcpReq.signal;
  let timedOut = false;
  const deadline = Date.now() + opts.timeoutSeconds * 1000;
  const timer = setTimeout(() => ((timedOut = true), stream.close()), opts.timeoutSeconds * 1000);
  const onAbort = () => {
    stream.close();
    if (opts.cancelOnDisconnect) void runs.cancel(principal, id).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const tasks = new Map<number, number>();
  const done = new Map<number, number>();
  let progress = 0;
  let status: string | undefined;
  let paused = false;
  let left: string | undefined;
  let stopped = false;
  try {
    for await (const item of stream) {
      if (item.kind !== 'event') continue;
      if (item.event.type === 'run.finished') status = item.event.status;
      if (item.event.type === 'run.status' && item.event.status === 'needs_review') {
        const run = await runs.get(principal, id);
        // Answered already (a revision's pause, or an answer over REST): the run goes on.
        if (run.status !== 'needs_review' || run.reviewAnswer) continue;
        // A run waiting for a person would hold the call to its timeout: the review goes back to the agent instead,
        // unless the person behind the client can be asked about the plan here.
        if (!opts.elicit || !run.proposedPlan) {
          paused = true;
          break;
        }
        const outcome = await reviewPlanByElicitation(ctx, runs, principal, run, deadline);
        if (outcome.kind === 'left') {
          left = outcome.why;
          paused = true;
          break;
        }
        if (outcome.kind === 'stopped') {
          stopped = true;
          break;
        }
        continue;
      }
      const message = progressMessage(item.event, tasks, done);
      if (message && token !== undefined && !signal.aborted) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } }).catch(() => undefined);
      }
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    stream.close();
  }
  if (signal.aborted) throw new Error(opts.cancelOnDisconnect ? `run ${id} cancelled: the client went away` : `stopped following run ${id}; it goes on`);
  if (paused) {
    const run = await runs.get(principal, id);
    const how = 'answer it with answer_review (continue, with an edited plan if you like, revise with feedback, or stop)';
    return jsonResult({ id, status: run.status, ...reviewOf(run), message: left ? `${left}: the run waits in review; ${how}` : `the run waits for review: ${how}` });
  }
  if (stopped) return jsonResult({ id, status: (await runs.get(principal, id)).status, message: 'the plan was stopped at review: nothing was researched' });
  if (status === undefined) {
    const run = await runs.get(principal, id);
    return jsonResult({ id, status: run.status, message: `${timedOut ? `still ${run.status} after ${opts.timeoutSeconds} s` : `the event stream ended while the run is ${run.status}`}: ask research_status, then get_report` });
  }
  if (status !== 'done') {
    const run = await runs.get(principal, id);
    throw new Error(`run ${id} ended ${status}${run.errors.length ? `: ${run.errors.map((e) => e.message).join('; ')}` : ''}`);
  }
  const report = await runs.report(principal, id);
  if (!report) throw new Error(`run ${id} is done but has no report`);
  return textResult(reportToMarkdown(report), { id, status, citations: report.sources.length });
}
