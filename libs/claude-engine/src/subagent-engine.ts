import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { type Finding, quoteOccursIn, type ReportSection, type SubagentReport, type SearchResult, type SearchTask, type Source, type SynthesizeResult, type SynthesizeTask, type TaskBudget, type TokenUsage, type WriterBrief, clipText } from '@orrery/protocol';
import type { EngineDecision, ProgressReporter, SubagentEngine } from '@orrery/engine';
import { Redactor } from './redaction/redact';
import { redactionDecision } from './redaction/redaction-decision';
import { addUsage, emptyUsage, inPhase, totalTokens } from '@orrery/engine';
import { ModelVerdictSchema, type StepJudgeModel } from '@orrery/decisions';
import { runAgentLoop, type AgentLoopResult, type LoopBudget } from './agent-loop';
import { LeadWriter } from './lead-writer';
import { LoopJudge } from './loop-judge';
import { AnthropicEngineError, isFallbackWorthy, StructuredOutputError } from './errors';
import { acceptsTaskBudget, MIN_TASK_BUDGET, resolveOptions, type AnthropicEngineOptions, type ResolvedEngineOptions } from './options';
import { priceOf } from './pricing';
import { FINAL_REPORT_TEXT, LOOP_JUDGE_SYSTEM, SYSTEM_PROMPTS, untrustedData, untrustedSource } from './prompts';
import { FindingsDraftSchema, ReportDraftSchema, type FindingsDraft, type ReportDraft } from './schemas';
import type { ContextManagement } from './messages-client';
import { SourceLedger } from './sources';
import { JUDGE_ANSWER_TOKENS, maxTokensFor, ROLE_EFFORT } from './role-settings';
import { RetryRate } from './retry-rate';
import { structuredCall } from './structured';
import { researchTools } from './tools';

const isSubagentEngine = (e: unknown): e is SubagentEngine =>
  !!e && typeof (e as SubagentEngine).search === 'function' && typeof (e as SubagentEngine).synthesize === 'function';

/** Characters of source text the extractor sees per source (a fetched page's first pages), and in all. */
const EXTRACT_CHARS_PER_SOURCE = 12_000;
/** Tokens kept for the researcher's final report after a stop: its thinking at high effort and a condensed report. */
const FINAL_REPORT_RESERVE = 3000;
/** The researcher's own report, as the lead reads it (SubagentReportSchema's bound). */
const REPORT_CHARS = 8000;
const EXTRACT_CHARS_TOTAL = 120_000;
/** Of a task's budget, what the research loop may spend; the rest is kept for extracting findings from it. */
const LOOP_SHARE = 0.65;
/** A conservative chars-per-token for sizing prompts before they are sent (English runs nearer 4). */
const CHARS_PER_TOKEN = 3;
/**
 * Old tool results are cleared server-side once a research conversation passes 100k prompt tokens, keeping the last 4
 * tool uses; each clearing frees at least 20k tokens, so the cache write it causes pays for itself (context editing
 * docs, "Context editing and prompt caching").
 */
const RESEARCH_CONTEXT: ContextManagement = { triggerInputTokens: 100_000, keepToolUses: 4, clearAtLeastTokens: 20_000 };
/** Below this many tokens left, extraction is not attempted: the prompt alone would not fit. */
const MIN_EXTRACTION_TOKENS = 1200;

const budgetDecision = (conclusion: string, signals: EngineDecision['signals']): EngineDecision => ({
  decisionType: 'budget-stop',
  level: 'L0',
  confidence: 1,
  conclusion: clipText(conclusion, 2000),
  signals,
});

/** A signal that fires at the task's deadline. */
const deadlineSignal = (b: TaskBudget | undefined): AbortSignal | undefined =>
  b ? AbortSignal.timeout(Math.max(1, Date.parse(b.deadline) - Date.now())) : undefined;
const pastDeadline = (b: TaskBudget | undefined, err: unknown): boolean =>
  !!b && err instanceof AnthropicEngineError && err.aborted && Date.now() >= Date.parse(b.deadline) - 5;

/**
 * Reports an engine decision through job progress (the only channel a subagent has back to the hub): stage
 * `decision:<type>`, the conclusion as message, and the decision itself (level, confidence, signals) for the log.
 */
async function reportDecision(progress: ProgressReporter, d: EngineDecision): Promise<void> {
  await progress({
    stage: `decision:${d.decisionType}`.slice(0, 100),
    message: clipText(d.conclusion, 500),
    decision: { ...d, decisionType: clipText(d.decisionType, 60), conclusion: clipText(d.conclusion, 2000) },
  });
}

async function reportRedactions(progress: ProgressReporter, what: string, redactor: Redactor): Promise<void> {
  const d = redactionDecision(what, redactor);
  if (d) await reportDecision(progress, d);
}

const list = (items: readonly string[]): string => (items.length ? items.join('; ') : '(none)');

/**
 * The researcher's notes between tool calls, as progress. On the default models that text comes back inside thinking
 * blocks, empty unless `display: "summarized"` was asked for ("Text between tool calls", whats-new-opus-5-5), so the
 * loop asks for it and this reads both kinds of block. Progress is reported in order, off the loop's path.
 */
class ResearchNotes {
  private pending: Promise<void> = Promise.resolve();
  constructor(
    private readonly progress: ProgressReporter,
    private readonly redactor: Redactor,
  ) {}

  push(m: Message): void {
    const text = m.content
      .map((b) => (b.type === 'thinking' ? b.thinking : b.type === 'text' ? b.text : ''))
      .filter((t) => t.trim().length > 0)
      .join(' ');
    if (!text) return;
    const message = `note: ${clipText(this.redactor.text(text), 400)}`;
    this.pending = this.pending.then(() => this.progress({ stage: 'research', message })).catch(() => undefined);
  }

  settle(): Promise<void> {
    return this.pending;
  }
}

/**
 * The spoke's side of the Claude engine. A task knows only its payload: everything from it is redacted, wrapped as
 * untrusted data where it carries source text, and sent to a fresh conversation.
 *
 * Stats keys (numeric, in every result): requests, toolCalls, toolErrors, serverToolCalls, continuations,
 * maxTokensContinuations, nudges, idleStops, iterationCapHits, continuationCapHits, refusals, truncated,
 * contextExhausted, structuredRetries, fallbacks, droppedFindings, redactions, sourcesSeen. Decisions (idle-stop,
 * fallback, caps...) are also reported through `progress` with stage `decision:<type>`.
 */
export class AnthropicSubagentEngine implements SubagentEngine {
  readonly name = 'anthropic' as const;
  private readonly o: ResolvedEngineOptions;
  private readonly fallback?: SubagentEngine;
  /** How often this worker's extractions are retried, which decides whether their sources are cached. */
  private readonly extractionRetries = new RetryRate();

  constructor(options: AnthropicEngineOptions) {
    this.o = resolveOptions(options);
    this.fallback = isSubagentEngine(options.fallback) ? options.fallback : undefined;
  }

  async search(task: SearchTask, progress: ProgressReporter): Promise<SearchResult> {
    const redactor = new Redactor();
    const ledger = new SourceLedger(task.knownSourceIds, redactor);
    const usage = emptyUsage();
    const decisions: EngineDecision[] = [];
    const passages = this.o.passagesFor ? await this.o.passagesFor(task.corpus, task.context.topic) : this.o.passages;
    const { tools, handlers } = researchTools({ webSearch: this.o.webSearch, webFetch: this.o.webFetch, passages, ledger, redactor });
    if (tools.length === 0) {
      return this.searchFallback(task, progress, usage, decisions, redactor, 'no research tool is configured (web search off and no corpus)');
    }

    await progress({ stage: 'research', message: `researching: ${clipText(redactor.text(task.query), 400)}`, fraction: 0.1 });
    const budget = this.loopBudget(task.budget);
    const judge = this.loopJudge(task, redactor, usage, budget);
    const notes = new ResearchNotes(progress, redactor);
    let loop: AgentLoopResult;
    const loopUsage = emptyUsage();
    try {
      loop = await runAgentLoop({
        api: this.o.api,
        model: this.o.subagentModel,
        ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
        system: SYSTEM_PROMPTS.researcher,
        messages: [{ role: 'user', content: this.researchBrief(task, redactor) }],
        tools,
        clientTools: handlers,
        maxTokens: maxTokensFor('researcher', this.o.maxTokens),
        contextManagement: RESEARCH_CONTEXT,
        effort: ROLE_EFFORT.researcher,
        // The researcher's notes between tool calls come back as thinking; summarized, so progress can show them.
        thinkingDisplay: 'summarized',
        maxContinuations: this.o.maxContinuations,
        maxIterations: this.o.maxIterations,
        idleThreshold: this.o.idleThreshold,
        observe: (m) => {
          notes.push(m);
          return ledger.observe(m);
        },
        budget,
        label: `search task ${task.taskId}`,
        ...(judge ? { onStep: judge.onStep } : {}),
        usage: loopUsage,
        // However the loop stops, it ends with the researcher's written report.
        finalTurn: { instruction: FINAL_REPORT_TEXT, maxTokens: maxTokensFor('researcher', this.o.maxTokens), reserveTokens: FINAL_REPORT_RESERVE },
        ...(this.taskBudgetFor(budget) ? { taskBudget: this.taskBudgetFor(budget) } : {}),
      });
    } catch (err) {
      // The replies before the refused request were billed: they count toward the task's cost either way.
      addUsage(usage, loopUsage);
      if (!isFallbackWorthy(err)) throw err;
      await judge?.settle();
      return this.searchFallback(task, progress, usage, decisions, redactor, err.message, {}, ledger.list());
    }
    await judge?.settle();
    await notes.settle();
    addUsage(usage, loop.usage);
    for (const d of [...(judge?.decisions ?? []), ...loop.decisions]) {
      decisions.push(d);
      await reportDecision(progress, d);
    }
    const stats: Record<string, number> = { ...loop.stats, structuredRetries: 0, fallbacks: 0, droppedFindings: 0 };

    if (loop.status === 'refused') {
      return this.searchFallback(task, progress, usage, decisions, redactor, 'the model refused the research task', stats, ledger.list());
    }

    const sources = ledger.list();
    await progress({ stage: 'extract', message: `extracting findings from ${sources.length} sources`, fraction: 0.7 });
    let findings: Finding[] = [];
    let gaps: string[] = [];
    let conflicts: string[] = [];
    const left = this.tokensAffordable(task.budget, usage);
    const late = task.budget !== undefined && Date.now() >= Date.parse(task.budget.deadline);
    if (sources.some((s) => s.text.length > 0) && (left < MIN_EXTRACTION_TOKENS || late)) {
      const why = late ? `its deadline ${task.budget!.deadline} has passed` : `${Math.max(0, left)} tokens are left of ${task.budget!.maxTokens}`;
      const d = budgetDecision(`search task ${task.taskId}: not extracting findings, ${why}; returning the sources it found`, {
        tokens: totalTokens(usage),
        maxTokens: task.budget!.maxTokens,
        sources: sources.length,
      });
      decisions.push(d);
      await reportDecision(progress, d);
    } else if (sources.some((s) => s.text.length > 0)) {
      try {
        const extracted = await this.extractFindings(task, sources, loop, redactor, left);
        addUsage(usage, inPhase(extracted.usage, 'extraction'));
        stats['structuredRetries'] = extracted.decisions.filter((d) => d.decisionType === 'structured-retry').length;
        for (const d of extracted.decisions) {
          decisions.push(d);
          await reportDecision(progress, d);
        }
        findings = extracted.findings;
        gaps = extracted.gaps;
        conflicts = extracted.conflicts;
        stats['droppedFindings'] = extracted.dropped;
      } catch (err) {
        if (pastDeadline(task.budget, err)) {
          const d = budgetDecision(`search task ${task.taskId}: the deadline passed while extracting findings; returning the sources it found`, { deadline: task.budget!.deadline });
          decisions.push(d);
          await reportDecision(progress, d);
        } else {
          if (!isFallbackWorthy(err)) throw err;
          if (err instanceof StructuredOutputError) {
            addUsage(usage, inPhase(err.usage, 'extraction'));
            stats['structuredRetries'] = err.decisions.filter((d) => d.decisionType === 'structured-retry').length;
            for (const d of err.decisions) {
              decisions.push(d);
              await reportDecision(progress, d);
            }
          }
          return this.searchFallback(task, progress, usage, decisions, redactor, err.message, stats, sources);
        }
      }
    }
    await reportRedactions(progress, `search task ${task.taskId}`, redactor);
    await progress({ stage: 'done', message: `${findings.length} findings from ${sources.length} sources`, fraction: 1 });
    const report = this.condensedReport(loop.finalText, gaps, conflicts, redactor);
    return {
      kind: 'search',
      taskId: task.taskId,
      findings,
      sources: sources.slice(0, 500),
      usage,
      stats: { ...stats, redactions: redactor.total, sourcesSeen: sources.length },
      ...(report ? { report } : {}),
    };
  }

  async synthesize(task: SynthesizeTask, progress: ProgressReporter): Promise<SynthesizeResult> {
    if (task.brief) return this.synthesizeAsLead({ ...task, brief: task.brief }, progress);
    const redactor = new Redactor();
    const usage = emptyUsage();
    const byId = new Map<string, Finding>();
    for (const s of task.sections) for (const f of s.findings) byId.set(f.id, f);
    const sectionIds = new Set(task.sections.map((s) => s.subtopicId));
    await progress({ stage: 'write', message: `writing from ${byId.size} findings`, fraction: 0.1 });

    const check = (d: ReportDraft): string[] => {
      const issues: string[] = [];
      const cited = new Set<string>();
      d.sections.forEach((s, si) =>
        s.paragraphs.forEach((p, pi) => {
          for (const id of p.findingIds) {
            const f = byId.get(id);
            if (!f) issues.push(`sections.${si}.paragraphs.${pi}: unknown finding id "${id}"`);
            else cited.add(f.sourceId);
          }
        }),
      );
      if (cited.size > task.maxCitations) issues.push(`the report cites ${cited.size} distinct sources; the limit is ${task.maxCitations}`);
      return issues;
    };

    let draft: ReportDraft;
    const stats: Record<string, number> = { requests: 0, structuredRetries: 0, fallbacks: 0 };
    const user = this.writerBrief(task, redactor);
    const answer = Math.max(this.o.maxTokens, 8000);
    const maxTokens = maxTokensFor('writer', answer);
    // The writer's prompt and answer must fit what the run has left; else the extractive writer answers, for free.
    // (max_tokens also holds room to think, which a report at medium effort seldom fills: it is a cap, not a cost.)
    const prompt =
      (await this.o.api.countTokens({ model: this.o.subagentModel, system: SYSTEM_PROMPTS.writer, messages: [{ role: 'user', content: user }] })) ??
      Math.ceil((SYSTEM_PROMPTS.writer.length + user.length) / CHARS_PER_TOKEN);
    const needed = prompt + answer;
    const affordable = this.tokensAffordable(task.budget, usage);
    if (needed > affordable) {
      const why = `the report needs about ${needed} tokens and the run can afford ${Math.floor(affordable)}`;
      return this.synthesizeFallback(task, progress, redactor, usage, budgetDecision(`synthesize task ${task.taskId}: ${why}; writing it extractively`, { needed, affordable: Math.floor(affordable) }), why);
    }
    try {
      const r = await structuredCall({
        api: this.o.api,
        model: this.o.subagentModel,
        ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
        system: SYSTEM_PROMPTS.writer,
        user,
        schema: ReportDraftSchema,
        purpose: `report sections (task ${task.taskId})`,
        effort: ROLE_EFFORT.writer,
        maxTokens,
        check,
        acceptWithIssues: true,
        ...(task.budget ? { signal: deadlineSignal(task.budget) } : {}),
      });
      addUsage(usage, r.usage);
      stats['requests'] = r.requests;
      stats['structuredRetries'] = r.decisions.length;
      for (const d of r.decisions) await reportDecision(progress, d);
      draft = r.value;
    } catch (err) {
      if (!isFallbackWorthy(err) && !pastDeadline(task.budget, err)) throw err;
      if (err instanceof StructuredOutputError) {
        addUsage(usage, err.usage);
        for (const r of err.decisions) await reportDecision(progress, r);
      }
      const why = err instanceof Error ? err.message : String(err);
      return this.synthesizeFallback(task, progress, redactor, usage, this.fallbackDecision('synthesize', why), why, err);
    }

    // Map finding ids onto citations (the finding's own verbatim quote), keeping at most maxCitations distinct sources.
    const allowed = new Set<string>();
    let droppedCitations = 0;
    const sections: ReportSection[] = [];
    for (const s of draft.sections) {
      const paragraphs: ReportSection['paragraphs'] = [];
      for (const p of s.paragraphs) {
        const seen = new Set<string>();
        const citations: ReportSection['paragraphs'][number]['citations'] = [];
        for (const id of p.findingIds) {
          const f = byId.get(id);
          if (!f) {
            droppedCitations += 1;
            continue;
          }
          if (!allowed.has(f.sourceId)) {
            if (allowed.size >= task.maxCitations) {
              droppedCitations += 1;
              continue;
            }
            allowed.add(f.sourceId);
          }
          const key = `${f.sourceId}\u0000${f.quote}`;
          if (seen.has(key)) continue;
          seen.add(key);
          citations.push({ sourceId: f.sourceId, quote: f.quote });
        }
        if (citations.length > 0) paragraphs.push({ text: p.text, citations });
      }
      if (paragraphs.length > 0) {
        sections.push({ title: s.title, ...(sectionIds.has(s.subtopicId) ? { subtopicId: s.subtopicId } : {}), paragraphs });
      }
    }
    await reportRedactions(progress, `synthesize task ${task.taskId}`, redactor);
    await progress({ stage: 'done', message: `${sections.length} sections`, fraction: 1 });
    return {
      kind: 'synthesize',
      taskId: task.taskId,
      title: draft.title,
      summary: draft.summary,
      sections: sections.slice(0, 60),
      usage,
      stats: { ...stats, droppedCitations, redactions: redactor.total },
    };
  }

  /** The researcher's condensed report: its own closing text, and what the extractor found missing or disputed. */
  private condensedReport(finalText: string, gaps: string[], conflicts: string[], r: Redactor): SubagentReport | undefined {
    const text = clipText(r.text(finalText.trim()), REPORT_CHARS);
    if (!text && gaps.length === 0 && conflicts.length === 0) return undefined;
    return {
      text,
      gaps: gaps.slice(0, 20).map((g) => clipText(r.text(g), 300)),
      conflicts: conflicts.slice(0, 20).map((c) => clipText(r.text(c), 500)),
    };
  }

  /** The loop's token share as a task budget the model sees, where its model takes one and it is not below the minimum. */
  private taskBudgetFor(b: LoopBudget): number | undefined {
    if (!this.o.api.profile.taskBudgets || b.maxTokens === undefined || b.maxTokens < MIN_TASK_BUDGET) return undefined;
    return acceptsTaskBudget(this.o.subagentModel) ? b.maxTokens : undefined;
  }

  /** The lead writes the report on the lead model, then a citer attaches citations sentence by sentence (LeadWriter). */
  private async synthesizeAsLead(task: SynthesizeTask & { brief: WriterBrief }, progress: ProgressReporter): Promise<SynthesizeResult> {
    const redactor = new Redactor();
    const usage = emptyUsage();
    const writer = new LeadWriter(this.o);
    const findings = task.sections.reduce((n, s) => n + s.findings.length, 0);
    await progress({ stage: 'write', message: `the lead writes from ${findings} findings and ${task.brief.reports.length} researcher reports`, fraction: 0.1 });
    // The writer's prompt and answer must fit what the run has left; else the extractive writer answers, for free.
    const { system, user } = writer.brief(task, redactor);
    const prompt = (await this.o.api.countTokens({ model: this.o.model, system, messages: [{ role: 'user', content: user }] })) ?? Math.ceil((system.length + user.length) / CHARS_PER_TOKEN);
    const needed = prompt + Math.max(this.o.maxTokens, 8000);
    const affordable = this.tokensAffordable(task.budget, usage, this.o.model);
    if (needed > affordable) {
      const why = `the report needs about ${needed} tokens and the run can afford ${Math.floor(affordable)}`;
      return this.synthesizeFallback(task, progress, redactor, usage, budgetDecision(`synthesize task ${task.taskId}: ${why}; writing it extractively`, { needed, affordable: Math.floor(affordable) }), why);
    }
    try {
      const w = await writer.write(task, redactor, task.budget ? deadlineSignal(task.budget) : undefined);
      addUsage(usage, w.usage);
      for (const d of w.decisions) await reportDecision(progress, d);
      await reportRedactions(progress, `synthesize task ${task.taskId}`, redactor);
      await progress({ stage: 'done', message: `${w.result.sections.length} sections, ${w.stats['citedSentences'] ?? 0} of ${w.stats['sentences'] ?? 0} sentences cited`, fraction: 1 });
      return { ...w.result, usage, stats: { ...w.stats, fallbacks: 0, redactions: redactor.total } };
    } catch (err) {
      if (!isFallbackWorthy(err) && !pastDeadline(task.budget, err)) throw err;
      if (err instanceof StructuredOutputError) {
        addUsage(usage, err.usage);
        for (const d of err.decisions) await reportDecision(progress, d);
      }
      const why = err instanceof Error ? err.message : String(err);
      return this.synthesizeFallback(task, progress, redactor, usage, this.fallbackDecision('synthesize', why), why, err);
    }
  }

  /** The loop judge of one task, its model's tokens added to the task's usage; none when the engine has no loop judge. */
  private loopJudge(task: SearchTask, redactor: Redactor, usage: TokenUsage, budget: LoopBudget): LoopJudge | undefined {
    const settings = this.o.loopJudge;
    if (!settings) return undefined;
    const goal = redactor.text(task.context.objective);
    const judgeSpent = emptyUsage();
    const replies = new Map<number, string>();
    const model: StepJudgeModel = async (input, ctx) => {
      const user = [
        untrustedData('goal', goal),
        `Step just completed: ${input.step}${input.maxSteps ? ` of at most ${input.maxSteps}` : ''}`,
        `Recent tool calls:\n${(input.recentActions ?? []).slice(-8).map((a) => `- ${redactor.text(typeof a === 'string' ? a : `${a.action}${a.newInformation === false ? ' (nothing new)' : ''}`)}`).join('\n') || '- (none)'}`,
        `State: ${input.stateSummary}`,
      ].join('\n');
      const res = await structuredCall({ api: this.o.api, model: this.o.judgeModel, system: LOOP_JUDGE_SYSTEM, user, schema: ModelVerdictSchema, purpose: 'loop judge verdict', effort: ROLE_EFFORT.judge, maxTokens: maxTokensFor('judge', JUDGE_ANSWER_TOKENS), signal: ctx.signal });
      addUsage(usage, inPhase(res.usage, 'judging'));
      addUsage(judgeSpent, res.usage);
      replies.set(input.stateVersion ?? input.step, res.raw);
      return res.value;
    };
    return new LoopJudge({
      goal,
      label: `search task ${task.taskId}`,
      every: settings.every,
      timeoutMs: settings.timeoutMs,
      enabled: settings.enabled,
      model,
      replyOf: (version) => replies.get(version),
      ...(budget.maxToolCalls !== undefined ? { maxSteps: budget.maxToolCalls } : {}),
      budgetLeft: (step) => {
        const tokens = budget.maxTokens ? 1 - (totalTokens(step.usage) + totalTokens(judgeSpent)) / budget.maxTokens : 1;
        const cost = budget.maxCostUsd ? 1 - (step.usage.costUsd + judgeSpent.costUsd) / budget.maxCostUsd : 1;
        return Math.max(0, Math.min(tokens, cost));
      },
    });
  }

  /**
   * The loop's share of the task's budget (the rest is kept for extraction); without one, the engine's own cap on tool
   * calls. Dollars bind only where the server bills them: a free server's tasks are reserved (and granted) $0.
   */
  private loopBudget(b: TaskBudget | undefined): LoopBudget {
    if (!b) return { maxToolCalls: this.o.maxToolCallsPerTask };
    return {
      maxTokens: Math.floor(b.maxTokens * LOOP_SHARE),
      maxToolCalls: Math.min(b.maxToolCalls, this.o.maxToolCallsPerTask),
      ...(this.o.api.profile.priced ? { maxCostUsd: b.maxCostUsd * LOOP_SHARE } : {}),
      deadlineMs: Date.parse(b.deadline),
    };
  }

  /**
   * Tokens the task can still spend: what its token share leaves, and what its dollar share buys at the subagent
   * model's input price (what the prompts that remain, extraction and writing, mostly are).
   */
  private tokensAffordable(b: TaskBudget | undefined, spent: TokenUsage, model = this.o.subagentModel): number {
    if (!b) return Infinity;
    const price = priceOf(this.o.api.billedPrices, model).input / 1e6;
    const byCost = price > 0 ? (b.maxCostUsd - spent.costUsd) / price : Infinity;
    return Math.min(b.maxTokens - totalTokens(spent), byCost);
  }

  private async synthesizeFallback(
    task: SynthesizeTask,
    progress: ProgressReporter,
    redactor: Redactor,
    usage: TokenUsage,
    d: EngineDecision,
    why: string,
    cause?: unknown,
  ): Promise<SynthesizeResult> {
    if (!this.fallback) throw new Error(`Anthropic engine: ${why}; no fallback engine is configured for synthesis`, { cause });
    await reportDecision(progress, d);
    await reportRedactions(progress, `synthesize task ${task.taskId}`, redactor);
    const fb = await this.fallback.synthesize(task, progress);
    return { ...fb, usage: addUsage(addUsage(emptyUsage(), usage), fb.usage), stats: { ...fb.stats, fallbacks: 1 } };
  }

  private researchBrief(task: SearchTask, r: Redactor): string {
    const c = task.context;
    const parts = [
      `Research objective: ${r.text(c.objective)}`,
      `Run topic (stay on it): ${r.text(c.topic)}`,
      `Search query to start from: ${r.text(task.query)}`,
      `In scope: ${list(c.scope.include.map((s) => r.text(s)))}`,
      `Out of scope (other agents cover these): ${list(c.scope.exclude.map((s) => r.text(s)))}`,
      ...(c.keyQuestions?.length ? [`Key questions:\n${c.keyQuestions.map((q) => `- ${r.text(q)}`).join('\n')}`] : []),
      `Source guidance: ${r.text(c.sourceGuidance) || '(none)'}`,
      ...(task.budget ? [`Effort: at most ${task.budget.maxToolCalls} tool calls.`] : []),
      `Output: ${r.text(c.outputFormat) || 'a report of findings with verbatim quotes and their sources, what you could not find, and where sources disagree'}`,
      `Aim for up to ${task.maxFindings} findings. ${task.knownSourceIds.length} sources are already known to the run; prefer new ones.`,
    ];
    if (c.correction) parts.push(`Correction from a previous attempt: ${r.text(c.correction)}`);
    if (c.excerpts.length) {
      parts.push(
        'Evidence the run already holds on this (build on it: confirm, deepen or contradict it; do not gather it again):',
        ...c.excerpts.map((e) => untrustedSource(e.sourceId, 'forwarded excerpt', r.text(e.text))),
      );
    }
    return parts.join('\n');
  }

  private async extractFindings(
    task: SearchTask,
    sources: Source[],
    loop: AgentLoopResult,
    r: Redactor,
    tokensLeft: number,
  ): Promise<{ findings: Finding[]; gaps: string[]; conflicts: string[]; usage: TokenUsage; decisions: EngineDecision[]; dropped: number }> {
    const usable = sources.filter((s) => s.text.length > 0);
    // The prompt and the reply fit what the task has left: the reply gets a third, the sources what remains.
    const answer = Math.max(256, Math.min(this.o.maxTokens, Math.floor(tokensLeft / 3)));
    const maxTokens = maxTokensFor('extractor', answer);
    let budget = Math.max(0, Math.min(EXTRACT_CHARS_TOTAL, (tokensLeft - answer - 1000) * CHARS_PER_TOKEN));
    const blocks: string[] = [];
    for (const s of usable) {
      if (budget <= 0) break;
      const text = clipText(s.text, Math.min(EXTRACT_CHARS_PER_SOURCE, budget));
      budget -= text.length;
      blocks.push(untrustedSource(s.id, s.title, text, s.url));
    }
    const byId = new Map(usable.map((s) => [s.id, s]));
    const quoteIssue = (f: FindingsDraft['findings'][number], i: number): string | undefined => {
      const src = byId.get(f.sourceId);
      if (!src) return `findings.${i}.sourceId: "${f.sourceId}" is not one of the given sources`;
      if (!quoteOccursIn(f.quote, src.text)) return `findings.${i}.quote: not a verbatim substring of source "${f.sourceId}"`;
      return undefined;
    };
    const notes = loop.finalText ? `\nThe researcher's report (untrusted, may be incomplete):\n${untrustedData('notes', clipText(r.text(loop.finalText), REPORT_CHARS))}` : '';
    const prompt = (kept: string[]) =>
      [
        `Objective: ${r.text(task.context.objective)}`,
        `Run topic: ${r.text(task.context.topic)}`,
        `Out of scope: ${list(task.context.scope.exclude.map((s) => r.text(s)))}`,
        `Extract at most ${task.maxFindings} findings. Cite sources only by the ids below.`,
        `Sources:\n${kept.join('\n')}`,
        notes,
      ].join('\n');
    let user = prompt(blocks);
    // The characters-per-token guess sized the sources; the API's count checks them, and the last ones go if over.
    const counted = await this.o.api.countTokens({ model: this.o.subagentModel, system: SYSTEM_PROMPTS.extractor, messages: [{ role: 'user', content: user }] });
    if (counted !== undefined && counted + answer > tokensLeft && blocks.length > 1) {
      const keep = Math.max(1, Math.floor(blocks.length * Math.max(0, tokensLeft - answer) / counted));
      user = prompt(blocks.slice(0, keep));
    }
    const retried = (decisions: EngineDecision[]) => this.extractionRetries.record(decisions.some((d) => d.decisionType === 'structured-retry'));
    const res = await structuredCall({
      api: this.o.api,
      model: this.o.subagentModel,
      ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
      system: SYSTEM_PROMPTS.extractor,
      user,
      schema: FindingsDraftSchema,
      purpose: `findings (task ${task.taskId})`,
      effort: ROLE_EFFORT.extractor,
      maxTokens,
      ...(task.budget ? { signal: deadlineSignal(task.budget) } : {}),
      check: (d) => d.findings.map(quoteIssue).filter((x): x is string => !!x),
      acceptWithIssues: true,
      // The sources are re-sent whole by a quote correction: cached once those are common enough to pay.
      cache: this.extractionRetries.cachePays,
    }).catch((err: unknown) => {
      if (err instanceof StructuredOutputError) retried(err.decisions);
      throw err;
    });
    retried(res.decisions);
    const findings: Finding[] = [];
    let dropped = 0;
    res.value.findings.forEach((f, i) => {
      if (quoteIssue(f, i) || findings.length >= task.maxFindings) {
        dropped += 1;
        return;
      }
      findings.push({ id: `${task.taskId}.f${findings.length + 1}`, claim: f.claim, sourceId: f.sourceId, quote: f.quote, subtopicId: task.subtopicId });
    });
    if (dropped > 0) {
      res.decisions.push({
        decisionType: 'findings-dropped',
        level: 'L0',
        confidence: 1,
        conclusion: `task ${task.taskId}: dropped ${dropped} findings whose quote is not verbatim in a recorded source`,
        signals: { dropped },
      });
    }
    return { findings, gaps: res.value.gaps ?? [], conflicts: res.value.conflicts ?? [], usage: res.usage, decisions: res.decisions, dropped };
  }

  private writerBrief(task: SynthesizeTask, r: Redactor): string {
    const sections = task.sections.map((s) => {
      const findings = s.findings.map((f) => `- [${f.id}] (source ${f.sourceId}) ${r.text(f.claim)}\n  quote: ${JSON.stringify(r.text(f.quote))}`);
      return `## ${r.text(s.title)} (subtopicId: ${s.subtopicId})\n${findings.join('\n')}`;
    });
    return [
      `Report topic: ${r.text(task.context.topic)}`,
      `Objective: ${r.text(task.context.objective)}`,
      `Output format: ${r.text(task.context.outputFormat) || 'sections with paragraphs'}`,
      `Cite at most ${task.maxCitations} distinct sources. Back each paragraph with the ids (in brackets) of the findings it uses.`,
      ...(task.context.correction ? [`Correction from the previous draft's check: ${r.text(task.context.correction)}`] : []),
      'Findings (gathered from untrusted sources):',
      untrustedData('findings', sections.join('\n\n')),
    ].join('\n');
  }

  private fallbackDecision(step: string, why: string, fallback: SubagentEngine | undefined = this.fallback): EngineDecision {
    return {
      decisionType: 'fallback',
      level: 'L2',
      confidence: 1,
      conclusion: clipText(`${step}: ${why}; ${fallback ? `fell back to the ${fallback.name} engine` : 'no fallback engine for it'}`, 2000),
      signals: { step, fallbackEngine: fallback?.name ?? null },
    };
  }

  private async searchFallback(
    task: SearchTask,
    progress: ProgressReporter,
    usage: TokenUsage,
    decisions: EngineDecision[],
    redactor: Redactor,
    why: string,
    stats: Record<string, number> = {},
    seen: Source[] = [],
  ): Promise<SearchResult> {
    // The corpus engine researches for Claude only on the run's own corpus; a web task has none to fall back to.
    const fallback = task.corpus !== undefined ? this.fallback : undefined;
    const d = this.fallbackDecision(`search task ${task.taskId}`, why, fallback);
    decisions.push(d);
    if (!fallback) {
      if (stats['refusals']) {
        // Refusal without a fallback: finish with what there is (sources seen, no findings), and say so.
        await reportDecision(progress, d);
        await reportRedactions(progress, `search task ${task.taskId}`, redactor);
        return {
          kind: 'search',
          taskId: task.taskId,
          findings: [],
          sources: seen.slice(0, 500),
          usage,
          stats: { ...stats, redactions: redactor.total, sourcesSeen: seen.length },
        };
      }
      throw new Error(`Anthropic engine, search task ${task.taskId}: ${why}; ${this.fallback ? 'the run has no corpus to fall back to' : 'no fallback engine is configured'}`);
    }
    await reportDecision(progress, d);
    await reportRedactions(progress, `search task ${task.taskId}`, redactor);
    const fb = await fallback.search(task, progress);
    return {
      ...fb,
      usage: addUsage(addUsage(emptyUsage(), usage), fb.usage),
      stats: { ...stats, ...fb.stats, fallbacks: 1, redactions: redactor.total },
    };
  }
}
