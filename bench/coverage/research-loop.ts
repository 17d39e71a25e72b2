import type { RoundForecast } from '@orrery/decisions';
import type { Finding, Plan, Source, Subtopic, SynthesizeResult } from '@orrery/protocol';
import { type BroughtFinding, evidenceOf } from '@orrery/coordinator/dist/coverage/round-figures';
import { buildSearchTask, buildSynthesisTask, type TaskLimits, type TaskRun } from '@orrery/coordinator/dist/planning/task-builder';
import { classifyRequest } from '@orrery/language';
import { type CoordinatorEngine, type EngineDecision, type SubagentEngine } from '@orrery/engine';

/**
 * An in-process copy of the coordinator's research loop (plan, rounds of search tasks, refine,
 * synthesize), so the engine can be measured without Redis or queues. Mirrors the service's rules:
 * ledger deduplicated by finding id and source id, novelty = new findings / findings returned,
 * stop when refine returns nothing, novelty < 0.1, or the round cap is reached.
 */
export interface LoopOptions {
  topic: string;
  corpus: string;
  coverageCheck: boolean;
  maxRounds: number;
  maxSubtopics: number;
  maxFindings: number;
  maxNewTasks: number;
  maxCitations: number;
  minNovelty: number;
  /** Called after every round's searches, before the stop checks and refine (the judge's moment). */
  onRound?: (snapshot: RoundSnapshot) => Promise<void>;
}

/** The loop's state after a round's searches: what the service's round judge sees. */
export interface RoundSnapshot {
  round: number;
  plan: Plan;
  findings: ReadonlyMap<string, Finding>;
  /** Which subtopic's task brought which finding, as the service records it. */
  brought: readonly BroughtFinding[];
  /** Findings per subtopic before this round (the service's evidence). */
  evidenceBefore: Record<string, number>;
  returned: number;
  newFindings: number;
  newSources: number;
  tasksInRound: number;
  tasksSoFar: number;
  /** The engine's forecast of the next round, as the service gives the judge (absent at the round cap). */
  forecast?: RoundForecast;
  /** The report the writer would give on the ledger as it is now. */
  synthesize(): Promise<SynthesizeResult>;
}

export const DEFAULT_LOOP: Omit<LoopOptions, 'topic' | 'corpus'> = {
  coverageCheck: true,
  maxRounds: 3,
  maxSubtopics: 8,
  maxFindings: 6,
  maxNewTasks: 4,
  maxCitations: 25,
  minNovelty: 0.1,
};

export interface LoopResult {
  plan: Plan;
  report: SynthesizeResult;
  rounds: number;
  tasks: number;
  engineCalls: number;
  decisions: EngineDecision[];
  ledger: { findings: number; sources: number; sourceIds: string[] };
  stopReason: string;
}

const RUN_ID = '00000000-0000-4000-8000-000000000000';

export async function runResearchLoop(coord: CoordinatorEngine, sub: SubagentEngine, o: LoopOptions): Promise<LoopResult> {
  const decisions: EngineDecision[] = [];
  const planned = await coord.plan({ runId: RUN_ID, topic: o.topic, corpus: o.corpus, maxSubtopics: o.maxSubtopics, classification: classifyRequest(o.topic).class, coverageCheck: o.coverageCheck });
  decisions.push(...planned.decisions);
  const plan: Plan = { ...planned.plan, subtopics: [...planned.plan.subtopics] };
  const findings = new Map<string, Finding>();
  const brought: BroughtFinding[] = [];
  const sources = new Map<string, Source>();
  let engineCalls = 1;
  let tasks = 0;
  let round = 0;
  let next: Subtopic[] = plan.subtopics;
  let stopReason = 'max-rounds';
  const noop = (): void => undefined;
  // The service's own task builders, so the loop's tasks are the ones the coordinator would dispatch.
  const run: TaskRun = { id: RUN_ID, engine: 'corpus', corpus: o.corpus, topic: o.topic, plan };
  const limits: TaskLimits = { findingsPerTask: o.maxFindings, maxCitations: o.maxCitations };

  const synthesizeLedger = (r: number): Promise<SynthesizeResult> => {
    const all = [...findings.values()];
    const synth = buildSynthesisTask(run, r, plan, all, [...new Set(all.map((f) => f.sourceId))].map((id) => sources.get(id)!), limits);
    return sub.synthesize(synth, noop);
  };
  const evidenceNow = (): Record<string, number> => evidenceOf(plan, [...findings.values()], brought);

  while (next.length > 0) {
    round++;
    const known = [...sources.keys()];
    const evidenceBefore = evidenceNow();
    const sourcesBefore = sources.size;
    let returned = 0;
    let fresh = 0;
    for (const [i, s] of next.entries()) {
      const task = buildSearchTask(run, s, round, i + 1, known, limits);
      const r = await sub.search(task, noop);
      tasks++;
      engineCalls++;
      returned += r.findings.length;
      for (const f of r.findings) {
        brought.push({ subtopicId: f.subtopicId, findingId: f.id });
        if (!findings.has(f.id)) {
          findings.set(f.id, f);
          fresh++;
        }
      }
      for (const src of r.sources) if (!sources.has(src.id)) sources.set(src.id, src);
    }
    const novelty = returned ? fresh / returned : 0;
    const r = round;
    const forecast =
      o.onRound && coord.forecast && round < o.maxRounds
        ? await coord.forecast({ runId: RUN_ID, topic: o.topic, corpus: o.corpus, plan, round, findings: [...findings.values()], evidence: evidenceNow(), maxNewTasks: o.maxNewTasks })
        : undefined;
    await o.onRound?.({ round, plan, findings, brought, evidenceBefore, returned, newFindings: fresh, newSources: sources.size - sourcesBefore, tasksInRound: next.length, tasksSoFar: tasks, ...(forecast ? { forecast } : {}), synthesize: () => synthesizeLedger(r) });
    if (round >= o.maxRounds) {
      stopReason = 'max-rounds';
      break;
    }
    if (novelty < o.minNovelty) {
      stopReason = `novelty ${novelty.toFixed(2)}`;
      break;
    }
    const evidence = evidenceNow();
    const refined = await coord.refine({ runId: RUN_ID, topic: o.topic, corpus: o.corpus, plan, round, findings: [...findings.values()], evidence, maxNewTasks: o.maxNewTasks });
    engineCalls++;
    decisions.push(...refined.decisions);
    plan.subtopics.push(...refined.newSubtopics);
    const thin = plan.subtopics.filter((s) => refined.thinSubtopicIds.includes(s.id));
    next = [...refined.newSubtopics, ...thin];
    if (next.length === 0) stopReason = 'refine-empty';
  }

  const all = [...findings.values()];
  const report = await synthesizeLedger(round);
  engineCalls++;
  tasks++;
  return { plan, report, rounds: round, tasks, engineCalls, decisions, ledger: { findings: findings.size, sources: sources.size, sourceIds: [...new Set(all.map((f) => f.sourceId))] }, stopReason };
}
