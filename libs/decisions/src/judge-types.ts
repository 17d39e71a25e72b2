/**
 * Types of the judge: the fast continue/stop/pivot decision taken after each round.
 * Plain data only, so a verdict can be logged as a protocol `Decision` and a history stored in Redis.
 */

export type JudgeSignal = 'continue' | 'stop' | 'pivot';
export type JudgeLevel = 'L0' | 'L1' | 'L2' | 'L3';
export type JudgeSignalValue = number | string | boolean | null;

export interface JudgeVerdict {
  signal: JudgeSignal;
  /** 0..1: how sure the deciding level is. */
  confidence: number;
  reason: string;
  level: JudgeLevel;
  /** The run state version the verdict was computed on; older verdicts are dropped. */
  stateVersion: number;
  /** What the decision used, for the structured decision log. */
  signals: Record<string, JudgeSignalValue>;
}

/** The yield of the round that just ended. */
export interface RoundYield {
  tasksDispatched: number;
  /** Tasks of the round that failed (optional; a failed child does not hang a round). */
  tasksFailed?: number;
  newSources: number;
  newFindings: number;
  /** Facets (terms) that appeared for the first time in this round's findings. */
  newFacets: number;
}

export interface SubtopicCoverage {
  id: string;
  title?: string;
  evidenceCount: number;
  /** When the coverage module already graded it; otherwise derived from evidenceCount. */
  status?: 'covered' | 'thin' | 'missing';
}

/** Budget left per dimension, as fractions 0..1 (see budget/remaining). */
export interface BudgetLeft {
  tokens: number;
  tasks: number;
  rounds: number;
  wallSeconds: number;
}

export interface JudgeStateSummary {
  subtopics: SubtopicCoverage[];
  /** Share of subtopics covered, 0..1. */
  coverage: number;
  /** Novelty of the last round, 0..1 (share of its findings/sources that were new). */
  novelty: number;
  budgetLeft: BudgetLeft;
  /**
   * Consecutive rounds, ending with the last one, that brought no new finding and no new source.
   * Optional: derived from the last round's yield when absent (see idleRoundsOf / idleRoundsFromRounds).
   */
  idleRounds?: number;
}

/**
 * The compact signal history (only the last non-continue signal and when it was,
 * not the raw history, so the judge is not biased toward `continue`).
 * Rounds are stored as absolute round numbers so updating it is idempotent under at-least-once delivery;
 * "rounds ago" is derived against the round being judged.
 */
export interface SignalHistory {
  lastNonContinue: { signal: 'stop' | 'pivot'; round: number } | null;
  lastPivotRound: number | null;
  pivotCount: number;
  /** Rounds in a row, ending with the last one, whose L2 verdict was unsure (not acted on); absent = 0. */
  unsureInRow?: number;
}

/**
 * What the next round can find, as the engine's refinement sees it before the judge decides (the corpus engine
 * forecasts; an engine that cannot leaves it out, and L1 then abstains).
 */
export interface RoundForecast {
  /** Tasks a refinement would dispatch next: new gap-targeted subtopics and thin ones to retry. */
  gapTasks: number;
  /** On-topic passages those tasks are expected to bring that the ledger does not hold. */
  expectedNewPassages: number;
  /** Share (0..1) of the scouting evidence the ledger still misses. */
  uncoveredShare: number;
  /** Scouting-evidence passages the ledger does not hold. */
  missingEvidence: number;
  /** Share (0..1) of the clusters of similar evidence passages (a stand-in for the topic's sections) the ledger has not touched. */
  untouchedClusterShare: number;
}

export interface JudgeInput {
  /** The run's goal (topic). */
  goal: string;
  /** The round that just completed (1-based). */
  round: number;
  lastActions: RoundYield;
  state: JudgeStateSummary;
  history: SignalHistory;
  stateVersion: number;
  /** Coverage share (0..1) at which the research is considered complete enough. */
  targetCoverage: number;
  forecast?: RoundForecast;
}
