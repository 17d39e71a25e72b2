import type { Finding, Plan, SearchTask, Source, Subtopic, SynthesizeResult, SynthesizeTask } from '@orrery/protocol';
import type { CoordinatorEngine, EngineDecision, SubagentEngine } from '@orrery/engines';

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
  const planned = await coord.plan({ runId: RUN_ID, topic: o.topic, corpus: o.corpus, maxSubtopics: o.maxSubtopics, coverageCheck: o.coverageCheck });
  decisions.push(...planned.decisions);
  const plan: Plan = { ...planned.plan, subtopics: [...planned.plan.subtopics] };
  const findings = new Map<string, Finding>();
  const sources = new Map<string, Source>();
  let engineCalls = 1;
  let tasks = 0;
  let round = 0;
  let next: Subtopic[] = plan.subtopics;
  let stopReason = 'max-rounds';
  const noop = (): void => undefined;

  while (next.length > 0) {
    round++;
    const known = [...sources.keys()];
    let returned = 0;
    let fresh = 0;
    for (const s of next) {
      const task: SearchTask = {
        kind: 'search',
        taskId: `t.${round}.${s.id}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-').slice(0, 200),
        runId: RUN_ID,
        round,
        engine: 'corpus',
        corpus: o.corpus,
        subtopicId: s.id,
        query: s.query,
        maxFindings: o.maxFindings,
        knownSourceIds: known,
        context: {
          objective: `Find evidence about "${s.title}" as part of research on "${o.topic}"`,
          topic: o.topic,
          scope: { include: s.facetTerms, exclude: s.excludeTerms },
          outputFormat: 'findings with verbatim quotes',
          sourceGuidance: 'corpus passages only',
          excerpts: [],
        },
      };
      const r = await sub.search(task, noop);
      tasks++;
      engineCalls++;
      returned += r.findings.length;
      for (const f of r.findings)
        if (!findings.has(f.id)) {
          findings.set(f.id, f);
          fresh++;
        }
      for (const src of r.sources) if (!sources.has(src.id)) sources.set(src.id, src);
    }
    const novelty = returned ? fresh / returned : 0;
    if (round >= o.maxRounds) {
      stopReason = 'max-rounds';
      break;
    }
    if (novelty < o.minNovelty) {
      stopReason = `novelty ${novelty.toFixed(2)}`;
      break;
    }
    const evidence: Record<string, number> = {};
    for (const f of findings.values()) evidence[f.subtopicId] = (evidence[f.subtopicId] ?? 0) + 1;
    const refined = await coord.refine({ runId: RUN_ID, topic: o.topic, corpus: o.corpus, plan, round, findings: [...findings.values()], evidence, maxNewTasks: o.maxNewTasks });
    engineCalls++;
    decisions.push(...refined.decisions);
    plan.subtopics.push(...refined.newSubtopics);
    const thin = plan.subtopics.filter((s) => refined.thinSubtopicIds.includes(s.id));
    next = [...refined.newSubtopics, ...thin];
    if (next.length === 0) stopReason = 'refine-empty';
  }

  const all = [...findings.values()];
  const synth: SynthesizeTask = {
    kind: 'synthesize',
    taskId: 't.synthesize',
    runId: RUN_ID,
    round,
    engine: 'corpus',
    corpus: o.corpus,
    sections: plan.subtopics.map((s) => ({ subtopicId: s.id, title: s.title, findings: all.filter((f) => f.subtopicId === s.id) })),
    sources: [...new Set(all.map((f) => f.sourceId))].map((id) => sources.get(id)!),
    maxCitations: o.maxCitations,
    context: {
      objective: `Write a report on "${o.topic}"`,
      topic: o.topic,
      scope: { include: [], exclude: [] },
      outputFormat: 'sections with cited paragraphs',
      sourceGuidance: 'cite ledger sources only',
      excerpts: [],
    },
  };
  const report = await sub.synthesize(synth, noop);
  engineCalls++;
  tasks++;
  return { plan, report, rounds: round, tasks, engineCalls, decisions, ledger: { findings: findings.size, sources: sources.size, sourceIds: [...new Set(all.map((f) => f.sourceId))] }, stopReason };
}
