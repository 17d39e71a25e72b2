import type { Finding, SearchResult, SearchTask, Source, SynthesizeResult, SynthesizeTask } from '@orrery/protocol';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoordinatorEngine, PlanningInput, PlanningOutput, ProgressReporter, RefinementOutput, SubagentEngine } from '@orrery/engine';
import { ZERO_USAGE } from '@orrery/engine';
import { clipText } from '@orrery/protocol';

export interface SimulatedEngineOptions {
  /** Fixed latency of every subagent task, for drills and orchestration benchmarks. */
  latencyMs: number;
  subtopics: number;
  rounds: number;
  findingsPerTask: number;
  /** Every k-th planned subtopic (s<k>, s<2k>, ...) comes back empty, for coverage and budget drills; 0 = never. */
  emptyEvery: number;
  /** For pivot drills: gap subtopics (g*) come back empty ('gaps'), or re-planned ones (p*) too ('new'). */
  dry?: 'none' | 'gaps' | 'new';
}

export const DEFAULT_SIMULATED_OPTIONS: SimulatedEngineOptions = { latencyMs: 0, subtopics: 4, rounds: 2, findingsPerTask: 3, emptyEvery: 0 };

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'topic';

/**
 * A deterministic engine with a fixed latency and no corpus: the same input always yields the same
 * plan, findings and report, so chaos tests can compare a disturbed run with an undisturbed one.
 */
export class SimulatedCoordinatorEngine implements CoordinatorEngine {
  /** No model: a task spends no tokens. */
  readonly taskEstimate = { tokens: 0, costUsd: 0 };
  readonly name = 'simulated' as const;
  readonly capabilities = { usesCorpus: false, findingsPerTask: 6 } as const;
  constructor(private readonly options: SimulatedEngineOptions = DEFAULT_SIMULATED_OPTIONS) {}

  async plan(input: PlanningInput): Promise<PlanningOutput> {
    const count = Math.min(this.options.subtopics, input.maxSubtopics);
    const subtopics = Array.from({ length: count }, (_, i) => ({
      id: `s${i + 1}`,
      title: clipText(`Aspect ${i + 1} of ${input.topic}`, 300),
      query: clipText(`${input.topic} aspect ${i + 1}`, 1000),
      facetTerms: [`aspect${i + 1}`],
      excludeTerms: [],
      origin: 'plan' as const,
    }));
    return {
      plan: { classification: 'breadth', subtopics },
      decisions: [
        { decisionType: 'plan', level: 'L0', confidence: 1, conclusion: `simulated plan with ${count} subtopics`, signals: { subtopics: count } },
      ],
      usage: ZERO_USAGE,
    };
  }

  async refine(input: { round: number; plan: { subtopics: { id: string }[] } }): Promise<RefinementOutput> {
    if (input.round >= this.options.rounds) {
      return { newSubtopics: [], thinSubtopicIds: [], decisions: [], usage: ZERO_USAGE };
    }
    const n = input.plan.subtopics.length + 1;
    return {
      newSubtopics: [
        { id: `g${input.round}`, title: `Gap ${input.round}`, query: `gap ${input.round}`, facetTerms: [`gap${input.round}`], excludeTerms: [], origin: 'refinement' },
      ],
      thinSubtopicIds: [],
      decisions: [{ decisionType: 'refinement', level: 'L0', confidence: 1, conclusion: `one gap subtopic (#${n})`, signals: { round: input.round } }],
      usage: ZERO_USAGE,
    };
  }

  /** A new decomposition: as many fresh aspects as the hub allows, ids of their own. */
  async replan(input: { round: number; topic: string; maxNewTasks: number }): Promise<RefinementOutput> {
    const newSubtopics = Array.from({ length: Math.max(0, input.maxNewTasks) }, (_, i) => ({
      id: `p${input.round}-${i + 1}`,
      title: clipText(`New angle ${i + 1} on ${input.topic}`, 300),
      query: clipText(`${input.topic} new angle ${i + 1}`, 1000),
      facetTerms: [`angle${i + 1}`],
      excludeTerms: [],
      origin: 'refinement' as const,
    }));
    return {
      newSubtopics,
      thinSubtopicIds: [],
      decisions: [{ decisionType: 'replan', level: 'L0', confidence: 1, conclusion: `re-planned: ${newSubtopics.length} new subtopics`, signals: { round: input.round } }],
      usage: ZERO_USAGE,
    };
  }
}

export class SimulatedSubagentEngine implements SubagentEngine {
  readonly name = 'simulated' as const;
  constructor(private readonly options: SimulatedEngineOptions = DEFAULT_SIMULATED_OPTIONS) {}

  async search(task: SearchTask, progress: ProgressReporter): Promise<SearchResult> {
    await progress({ stage: 'search', message: `searching "${task.query}"` });
    if (this.options.latencyMs > 0) await sleep(this.options.latencyMs);
    const base = `sim-${slug(task.context.topic)}-${task.subtopicId}`;
    const k = this.options.emptyEvery;
    const planned = Number(/^s(\d+)$/.exec(task.subtopicId)?.[1] ?? 0);
    const dry = (this.options.dry === 'gaps' || this.options.dry === 'new') && /^g\d+$/.test(task.subtopicId);
    const dryReplan = this.options.dry === 'new' && /^p\d+-\d+$/.test(task.subtopicId);
    if ((k > 0 && planned > 0 && planned % k === 0) || dry || dryReplan) {
      return { kind: 'search', taskId: task.taskId, findings: [], sources: [], usage: ZERO_USAGE, stats: { latencyMs: this.options.latencyMs } };
    }
    const sources: Source[] = [];
    const findings: Finding[] = [];
    for (let i = 1; i <= Math.min(this.options.findingsPerTask, task.maxFindings); i++) {
      const id = `${base}-${i}`;
      const quote = `Simulated evidence ${i} on ${task.query}.`;
      sources.push({ id, kind: 'passage', title: `Simulated source ${i} (${task.subtopicId})`, text: `${quote} More simulated context.` });
      findings.push({ id: `${id}#1`, claim: quote, sourceId: id, quote, subtopicId: task.subtopicId });
    }
    return { kind: 'search', taskId: task.taskId, findings, sources, usage: ZERO_USAGE, stats: { latencyMs: this.options.latencyMs } };
  }

  async synthesize(task: SynthesizeTask, progress: ProgressReporter): Promise<SynthesizeResult> {
    await progress({ stage: 'write', message: `writing ${task.sections.length} sections` });
    if (this.options.latencyMs > 0) await sleep(this.options.latencyMs);
    const cited = new Set<string>();
    const sections = task.sections
      .filter((s) => s.findings.length > 0)
      .map((s) => ({
        title: s.title,
        subtopicId: s.subtopicId,
        paragraphs: s.findings.map((f) => {
          cited.add(f.sourceId);
          return { text: f.claim, citations: [{ sourceId: f.sourceId, quote: f.quote }] };
        }),
      }));
    return {
      kind: 'synthesize',
      taskId: task.taskId,
      title: clipText(`Research report: ${task.context.topic}`, 300),
      summary: `This simulated report covers ${sections.length} subtopics with ${cited.size} sources.`,
      sections,
      usage: ZERO_USAGE,
      stats: {},
    };
  }
}
