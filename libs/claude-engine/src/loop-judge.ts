import type { ContentBlock } from '@anthropic-ai/sdk/resources/messages';
import type { EngineDecision } from '@orrery/engine';
import { judgeStep, mostConservative, stepJudgeL0, type StepAction, type StepHistoryEntry, type StepJudgeInput, type StepJudgeModel, type StepJudgeVerdict } from '@orrery/decisions';
import type { LoopStep, StepVerdict } from './agent-loop';
import { clipText } from '@orrery/protocol';

export interface LoopJudgeOptions {
  goal: string;
  label: string;
  /** A synchronous judge call every this many steps (LOOP_JUDGE_EVERY); asynchronous ones in between. */
  every: number;
  /** The task's step budget: at it the rules stop the loop. */
  maxSteps?: number;
  /** Share of the task's budget left after a step (the loop's usage plus the judge model's): the rules' per-task budget. */
  budgetLeft?: (step: LoopStep) => number;
  /** The judge model (L2); without one the loop judge is rules only. */
  model?: StepJudgeModel;
  /** Read before every model judgement: the deployment's switch and JUDGE. Off = rules only, no model request. */
  enabled: () => Promise<boolean>;
  timeoutMs: number;
  /** The judge model's reply word for word for the judgement of a step (its state version), for the log. */
  replyOf?: (stateVersion: number) => string | undefined;
}

type Mode = 'rules' | 'sync' | 'async';
interface Judged {
  verdict: StepJudgeVerdict;
  mode: Mode;
}
interface Pending {
  version: number;
  summary: string;
  settled?: StepJudgeVerdict;
  ms?: number;
  done: Promise<void>;
}

/** What the judge saw at a step, in one line: the decision log's input summary. */
const summaryOf = (input: StepJudgeInput): string => {
  const last = input.recentActions?.at(-1);
  const action = last === undefined ? '(none)' : typeof last === 'string' ? last : `${last.action}${last.newInformation === false ? ' (nothing new)' : ''}`;
  return clipText(`step ${input.step}${input.maxSteps ? ` of ${input.maxSteps}` : ''}; ${input.stateSummary}; last call ${action}`, 500);
};

/** What the model saw the step do: each tool call as `name: query` (or the passage id), so repeats show. */
function actionsOf(content: ContentBlock[], newSources: number): StepAction[] {
  const out: StepAction[] = [];
  for (const b of content) {
    if (b.type !== 'tool_use' && b.type !== 'server_tool_use') continue;
    const input = (b.input ?? {}) as Record<string, unknown>;
    const what = input['query'] ?? input['id'] ?? input['url'] ?? JSON.stringify(input);
    out.push({ action: `${b.name}: ${clipText(String(what), 300)}`, newInformation: newSources > 0 });
  }
  return out;
}

/**
 * The judge inside an agent loop (the loop's `onStep`). After each tool turn: the step rules (idle, repetition of
 * the same query or passage, the step budget) every step; the judge model synchronously every `every` steps and,
 * in between, asynchronously where the rules are unsure (its answer is used on the next step, dropped when later:
 * each judgement carries the step it was computed on as its state version). Two asynchronous pivots in a row force
 * a synchronous call. When levels disagree the conservative signal wins, and the disagreement is recorded.
 * A pivot steers the model away from the repeated path; the step judge's guards turn a pivot in its cooldown on a
 * still-dead path into stop.
 */
export class LoopJudge {
  /** Every judgement worth keeping (model calls, non-continue rules, conflicts, stale drops), for the task's decisions. */
  readonly decisions: EngineDecision[] = [];
  private step = 0;
  private readonly actions: StepAction[] = [];
  private readonly history: StepHistoryEntry[] = [];
  private pending: Pending[] = [];
  private summary = '';
  private asyncPivotsInRow = 0;

  constructor(private readonly o: LoopJudgeOptions) {}

  readonly onStep = async (s: LoopStep): Promise<StepVerdict> => {
    const n = ++this.step;
    this.actions.push(...actionsOf(s.message.content, s.newSources));
    const input: StepJudgeInput = {
      goal: this.o.goal,
      step: n,
      recentActions: [...this.actions],
      stateSummary: `${s.stats.toolCalls} client and ${s.stats.serverToolCalls} server tool calls so far; ${s.newSources} new sources this step`,
      history: [...this.history],
      stateVersion: n,
      ...(this.o.maxSteps !== undefined ? { maxSteps: this.o.maxSteps } : {}),
      ...(this.o.budgetLeft ? { budgetLeft: this.o.budgetLeft(s) } : {}),
    };
    this.summary = summaryOf(input);
    const judged: Judged[] = [{ verdict: stepJudgeL0(input), mode: 'rules' }];
    judged.push(...this.takeAsync(n));
    const model = this.o.model && (await this.o.enabled()) ? this.o.model : undefined;
    if (model && judged[0]!.verdict.signal !== 'stop') {
      const forced = this.asyncPivotsInRow >= 2;
      if (n % this.o.every === 0 || forced) {
        this.asyncPivotsInRow = 0;
        const t0 = performance.now();
        const v = await judgeStep(input, { model, timeoutMs: this.o.timeoutMs, escalate: 'always' });
        judged.push({ verdict: v, mode: 'sync' });
        this.log(v, 'sync', n, { latencyMs: Math.round(performance.now() - t0), ...(forced ? { forcedBy: 'two async pivots' } : {}) });
      } else if (judged[0]!.verdict.route === 'escalate') {
        // Between the scheduled checks the model is asked only where the rules are unsure, without holding the loop.
        this.issueAsync(input, model);
      }
    }
    const final = mostConservative(judged, (j) => j.verdict.signal);
    const signals = new Set(judged.map((j) => j.verdict.signal));
    this.history.push({ step: n, signal: final.verdict.signal });
    if (signals.size > 1) {
      this.decisions.push(this.decision(final.verdict, final.mode, n, `conservative wins: ${judged.map((j) => `${j.mode} ${j.verdict.level} ${j.verdict.signal}`).join(', ')} → ${final.verdict.signal}`, { conflict: true }));
    } else if (final.mode === 'rules' && final.verdict.signal !== 'continue') {
      this.log(final.verdict, 'rules', n);
    }
    if (final.verdict.signal === 'stop') return { stop: this.decision(final.verdict, final.mode, n, `stop at step ${n}: ${final.verdict.reasons.join('; ')}`, { stopped: true }) };
    if (final.verdict.signal === 'pivot') {
      return { steer: 'Loop check: your recent tool calls repeat or bring nothing new. Change approach now: a clearly different query or source; if there is none, conclude with your notes.' };
    }
    return undefined;
  };

  /** Waits for the asynchronous calls still out (each bounded by the judge timeout), so their tokens are counted. */
  async settle(): Promise<void> {
    await Promise.all(this.pending.map((p) => p.done));
  }

  private issueAsync(input: StepJudgeInput, model: StepJudgeModel): void {
    const p: Pending = { version: input.stateVersion!, summary: summaryOf(input), done: Promise.resolve() };
    const t0 = performance.now();
    p.done = judgeStep(input, { model, timeoutMs: this.o.timeoutMs }).then((v) => {
      p.settled = v;
      p.ms = Math.round(performance.now() - t0);
    });
    this.pending.push(p);
  }

  /** Answers that came back by step `n`: the one from step n-1 is used; older ones describe a state long gone. */
  private takeAsync(n: number): Judged[] {
    const out: Judged[] = [];
    const keep: Pending[] = [];
    for (const p of this.pending) {
      if (!p.settled) {
        keep.push(p);
        continue;
      }
      if (p.version < n - 1) {
        this.decisions.push(this.decision(p.settled, 'async', n, `dropped: computed on step ${p.version}, the loop is at step ${n}`, { stale: true, input: p.summary, latencyMs: p.ms ?? 0 }));
        continue;
      }
      out.push({ verdict: p.settled, mode: 'async' });
      this.log(p.settled, 'async', n, { input: p.summary, latencyMs: p.ms ?? 0 });
      this.asyncPivotsInRow = p.settled.signal === 'pivot' ? this.asyncPivotsInRow + 1 : 0;
    }
    this.pending = keep;
    return out;
  }

  private log(v: StepJudgeVerdict, mode: Mode, step: number, extra: Record<string, string | number | boolean> = {}): void {
    this.decisions.push(this.decision(v, mode, step, `${v.signal}: ${v.reasons.join('; ')}`, extra));
  }

  private decision(v: StepJudgeVerdict, mode: Mode, step: number, conclusion: string, extra: Record<string, string | number | boolean>): EngineDecision {
    const reply = v.level === 'L2' ? this.o.replyOf?.(v.stateVersion) : undefined;
    return {
      decisionType: 'loop-judge',
      level: v.level,
      confidence: v.confidence,
      conclusion: clipText(`${this.o.label}: ${conclusion}`, 2000),
      signals: { step, stateVersion: v.stateVersion, mode, rule: v.rule, signal: v.signal, input: this.summary, ...(reply !== undefined ? { modelReply: clipText(reply, 1000) } : {}), ...extra },
    };
  }
}
