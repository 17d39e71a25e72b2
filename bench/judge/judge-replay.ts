import { roundFigures } from '@orrery/coordinator/dist/coverage/round-figures';
import { EMPTY_SIGNAL_HISTORY, idleRoundsFromRounds, type JudgeInput } from '@orrery/decisions';
import type { CoordinatorEngine, SubagentEngine } from '@orrery/engine';
import { DEFAULT_LOOP, runResearchLoop, type RoundSnapshot } from '../coverage/research-loop';
import { scoreReport, type TopicJudgments } from '../coverage/score';

/** Every replayed run continues to this many rounds, whatever a judge would have said. */
export const REPLAY_ROUND_CAP = 6;
/** The service's default task budget (BUDGET_MAX_TASKS) and target coverage (TARGET_COVERAGE). */
const MAX_TASKS = 40;
const TARGET_COVERAGE = 0.8;

export interface ReplayRound {
  /** What the round judge is given after this round, built as RoundJudgeService.input builds it. */
  input: JudgeInput;
  /** section_recall of the report written on the ledger after this round. */
  sectionRecall: number;
  precision: number;
}

export interface ReplayTopic {
  topic: string;
  rounds: ReplayRound[];
  /** 'cap': ran to REPLAY_ROUND_CAP; 'refine-empty': refinement found nothing more to search. */
  ended: 'cap' | 'refine-empty';
}

/** The judge's input after a round of the in-process loop: the service's figures, with the budget a run of `cap` rounds has left. */
export function judgeInputOf(topic: string, s: RoundSnapshot, previous: readonly JudgeInput[], cap: number): JudgeInput {
  const all = [...s.findings.values()];
  const figures = roundFigures(s.plan, all, s.brought, s.returned, s.newFindings);
  const newFacets = s.plan.subtopics.filter((t) => (s.evidenceBefore[t.id] ?? 0) === 0 && (figures.evidence[t.id] ?? 0) > 0).length;
  const yields = [...previous.map((p) => p.lastActions), { newFindings: s.newFindings, newSources: s.newSources }];
  return {
    goal: topic,
    round: s.round,
    lastActions: { tasksDispatched: s.tasksInRound, tasksFailed: 0, newSources: s.newSources, newFindings: s.newFindings, newFacets },
    state: {
      subtopics: s.plan.subtopics.map((t) => ({ id: t.id, title: t.title, evidenceCount: figures.evidence[t.id] ?? 0 })),
      coverage: figures.coverage,
      novelty: figures.novelty,
      budgetLeft: { tokens: 1, tasks: Math.max(0, 1 - s.tasksSoFar / MAX_TASKS), rounds: Math.max(0, 1 - s.round / cap), wallSeconds: 1 },
      idleRounds: idleRoundsFromRounds(yields),
    },
    history: EMPTY_SIGNAL_HISTORY,
    stateVersion: s.round,
    targetCoverage: TARGET_COVERAGE,
    ...(s.forecast ? { forecast: s.forecast } : {}),
  };
}

/** One topic's run, every round continued to the cap, with the report's score after each round. */
export async function replayTopic(coord: CoordinatorEngine, sub: SubagentEngine, topic: string, judgments: TopicJudgments, cap = REPLAY_ROUND_CAP): Promise<ReplayTopic> {
  const rounds: ReplayRound[] = [];
  const onRound = async (s: RoundSnapshot): Promise<void> => {
    const input = judgeInputOf(topic, s, rounds.map((r) => r.input), cap);
    const score = scoreReport(await s.synthesize(), judgments);
    rounds.push({ input, sectionRecall: score.sectionRecall, precision: score.precision });
  };
  const r = await runResearchLoop(coord, sub, { ...DEFAULT_LOOP, topic, corpus: 'bench', maxRounds: cap, minNovelty: 0, onRound });
  return { topic, rounds, ended: r.rounds >= cap ? 'cap' : 'refine-empty' };
}
