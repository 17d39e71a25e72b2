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
  /** The coordinator's classification of the request (its form decides; see `classifyRequest`). */
  classification: RequestClass;
  /** Ablation: false skips the plan's coverage check. */
  coverageCheck: boolean;
}
export interface PlanningOutput {
  plan: Plan;
  decisions: EngineDecision[];
  usage: TokenUsage;
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

/** The hub's side of an engine: planning and gap finding. Runs in the coordinator. */
export interface CoordinatorEngine {
  readonly name: ResolvedEngine;
  /** Model tokens and dollars a search task of this engine is expected to take (zero for an engine without a model). */
  readonly taskEstimate: TaskEstimate;
  plan(input: PlanningInput): Promise<PlanningOutput>;
  refine(input: RefinementInput): Promise<RefinementOutput>;
  /**
   * A pivot: a new decomposition of the topic that avoids what the run has exhausted (the plan's subtopics, the
   * evidence it found, the subtopics that came back empty). Only new subtopics; the hub searches nothing old.
   */
  replan(input: RefinementInput): Promise<RefinementOutput>;
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
