import type { AnswerAdvice } from '@orrery/language';
import type {
  Decision,
  Finding,
  Plan,
  RequestClass,
  ResolvedEngine,
  SearchResult,
  SearchTask,
  Subtopic,
  SynthesizeResult,
  SynthesizeTask,
  TokenUsage,
} from '@orrery/protocol';
import type { ModelVerdict, RoundForecast } from '@orrery/decisions';
import { emptyUsage } from './usage';

/** A decision an engine took; the coordinator stamps runId, ts and stateVersion and logs it. */
export type EngineDecision = Omit<Decision, 'runId' | 'ts' | 'stateVersion'>;

export interface ProgressUpdate {
  stage: string;
  message: string;
  fraction?: number;
  /** With stage `decision:<type>`: the decision itself, logged by the coordinator. */
  decision?: EngineDecision;
}
export type ProgressReporter = (update: ProgressUpdate) => Promise<void> | void;

export interface PlanningInput {
  runId: string;
  topic: string;
  corpus?: string;
  maxSubtopics: number;
  /** The coordinator's classification of the request (its form decides; see `classifyRequest`); advice to a lead that plans. */
  classification: RequestClass;
  /** The rules' reading of the question (class, form, language), shown to a lead that plans as advice. */
  advice?: AnswerAdvice;
  /** Ablation: false skips the plan's coverage check. */
  coverageCheck: boolean;
  /**
   * A follow-up's inheritance: what its parent run found, already in its ledger and citable without a search. An
   * engine that plans with a model shows it to the model, to plan only what it leaves open; the hub then skips the
   * subtopics it covers either way.
   */
  inherited?: InheritedFinding[];
}
/** One finding a follow-up inherited, as a planner is shown it. */
export interface InheritedFinding {
  claim: string;
  sourceTitle: string;
}
export interface PlanningOutput {
  plan: Plan;
  decisions: EngineDecision[];
  usage: TokenUsage;
}

/** A person's feedback on a proposed plan, for the engine to revise it by. */
export interface PlanRevisionInput {
  runId: string;
  topic: string;
  corpus?: string;
  plan: Plan;
  feedback: string;
  maxSubtopics: number;
}
export interface PlanRevisionOutput extends PlanningOutput {
  /** One line per change the revision made, shown to the person. */
  changes: string[];
}

export interface RefinementInput {
  runId: string;
  topic: string;
  corpus?: string;
  plan: Plan;
  /** The round that just completed (1-based). */
  round: number;
  /** Every finding in the run's ledger so far. */
  findings: Finding[];
  /** Findings per subtopic id so far. */
  evidence: Record<string, number>;
  maxNewTasks: number;
}
export interface RefinementOutput {
  /** New gap-targeted subtopics to research next round (also appended to the plan). */
  newSubtopics: Subtopic[];
  /** Existing subtopic ids that came back thin and deserve another search. */
  thinSubtopicIds: string[];
  decisions: EngineDecision[];
  usage: TokenUsage;
}

/** What one search task is expected to consume; the hub reserves it before dispatch and settles it to the actual usage. */
export interface TaskEstimate {
  tokens: number;
  costUsd: number;
}

/** What a judge model is asked: a round of a run, or a step of an agent loop (the MCP judge). */
export interface ModelJudgeInput {
  /** The run's goal (topic); redacted before it is sent. */
  goal: string;
  /** The round (or step) that just completed (1-based). */
  round: number;
  /** What the last round did, one line each (e.g. "search: wind turbine design → 4 findings, 3 new sources"). */
  lastActions: string[];
  /** What the round brought; a step tells how many of its recent actions brought new information instead. */
  yield: { newFindings: number; newSources: number; novelty?: number; coverage?: number } | { actionsWithNewInformation: number; actions: number; idleSteps: number };
  /** A compact state summary (budget left, evidence per subtopic...). */
  stateSummary: string;
  signalHistory: { lastNonContinue?: { signal: 'stop' | 'pivot'; roundsAgo: number }; pivots: number };
  /** Abort (e.g. the judge's timeout); a judge that times out counts as continue upstream. */
  abortSignal?: AbortSignal;
}

export interface JudgeVerdictResult extends ModelVerdict {
  usage: TokenUsage;
  /** The model's reply as it came, for the decision log. */
  raw: string;
}

/** A judge model (L2). Throws when its answer fails validation twice: the kernel counts that as continue. */
export interface ModelJudge {
  judgeVerdict(input: ModelJudgeInput): Promise<JudgeVerdictResult>;
}

/** What the hub's side of an engine can do, declared on the port: callers ask it, never the engine's name. */
export interface CoordinatorCapabilities {
  /** A judge model the round judge and the MCP judge may ask where the rules are unsure; absent when the engine has none. */
  readonly judge?: ModelJudge;
  /** The engine researches a corpus: a run names one (the default when it does not), which must be ingested and known. */
  readonly usesCorpus: boolean;
  /** The engine it falls back to when its model's output fails validation; absent when none. */
  readonly fallback?: ResolvedEngine;
  /**
   * A lead model plans every request and writes its report: the rules' class only advises it, and a straightforward
   * question gets a written answer too. Absent: the rules classify, and a straightforward question is answered directly.
   */
  readonly leadWrites?: boolean;
  /** Findings a search task returns unless FINDINGS_PER_TASK says otherwise: what one task's evidence yields on this engine. */
  readonly findingsPerTask: number;
}

/**
 * A failure an engine reports with what a worker needs to know: whether another attempt can succeed, and for a
 * rate limit how long to wait. Engines throw subclasses (AnthropicEngineError); callers test for this one.
 */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; rateLimitedForMs?: number },
  ) {
    super(message, options);
    this.rateLimitedForMs = options?.rateLimitedForMs;
  }
  /** Set when the engine was rate limited: how long its queue should stay shut. */
  readonly rateLimitedForMs?: number;
}

/** The hub's side of an engine: planning and gap finding. Runs in the coordinator. */
export interface CoordinatorEngine {
  readonly name: ResolvedEngine;
  readonly capabilities: CoordinatorCapabilities;
  /** Model tokens and dollars a search task of this engine is expected to take (zero for an engine without a model). */
  readonly taskEstimate: TaskEstimate;
  plan(input: PlanningInput): Promise<PlanningOutput>;
  /** The plan revised by a person's feedback in words (plan review); absent, an engine's plans are edited as JSON only. */
  revisePlan?(input: PlanRevisionInput): Promise<PlanRevisionOutput>;
  refine(input: RefinementInput): Promise<RefinementOutput>;
  /**
   * A pivot: a new decomposition of the topic that avoids what the run has exhausted (the plan's subtopics, the
   * evidence it found, the subtopics that came back empty). Only new subtopics; the hub searches nothing old.
   */
  replan(input: RefinementInput): Promise<RefinementOutput>;
  /**
   * What the next round can find, for the judge before it decides: the refinement's gap tasks, the new passages
   * they are expected to bring, the share of the evidence still uncovered. Cheap and side-effect free; engines
   * that cannot tell without a model call leave it out.
   */
  forecast?(input: RefinementInput): Promise<RoundForecast>;
  /**
   * Which of these sources the hub's own precision guard holds to be about the topic. The result check
   * asks it for findings whose words do not name the topic (a storm's aid pledges, an actor's private
   * life): the hub vouches for them from its own computation, not from the subagent's say-so. Engines
   * without a guard of their own leave it out, and such findings stay off-topic.
   */
  onTopicSources?(input: { topic: string; corpus?: string; sourceIds: readonly string[] }): Promise<ReadonlySet<string>>;
}

/** The spoke's side of an engine: one task, knowing only its payload. Runs in a subagent worker. */
export interface SubagentEngine {
  readonly name: ResolvedEngine;
  search(task: SearchTask, progress: ProgressReporter): Promise<SearchResult>;
  synthesize(task: SynthesizeTask, progress: ProgressReporter): Promise<SynthesizeResult>;
}

export interface PassageHit {
  id: string;
  title: string;
  url?: string;
  text: string;
  score: number;
}

/** What the Claude engine's client tools need from a corpus. */
export interface PassageSearch {
  search(query: string, limit: number): PassageHit[];
  get(id: string): PassageHit | undefined;
}

/** Nothing consumed; never mutated (add into `emptyUsage()` instead). */
export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze(emptyUsage());
