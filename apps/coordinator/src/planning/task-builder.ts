import { clipText } from '@orrery/protocol';
import type { Finding, Plan, Run, SearchTask, Source, Subtopic, SynthesizeTask, TaskBudget, TaskContext, WriterBrief } from '@orrery/protocol';
import { available } from '../budget';
import { jobIds } from '../queues/job-ids';
import { gapExcerpts } from './gap-excerpts';

/** What tasks are built from: the run, and its plan when it has one (its excluded years and the shape the tasks carry). */
export type TaskRun = Pick<Run, 'id' | 'engine' | 'corpus' | 'topic'> & Partial<Pick<Run, 'plan'>>;

export interface TaskLimits {
  findingsPerTask: number;
  maxCitations: number;
  /** Tool calls one search task may make. */
  maxToolCallsPerTask?: number;
}

const deadlineOf = (run: Pick<Run, 'budgetLedger'>): string => new Date(run.budgetLedger.startedAtMs + run.budgetLedger.budget.maxWallSeconds * 1000).toISOString();

/**
 * A search task's share of its run's budget: its even part of the reservation its round was dispatched under (which
 * was trimmed to what the run had left), and the run's deadline. The same record gives the same budget.
 */
export function taskBudget(run: Pick<Run, 'budgetLedger'>, reservationId: string, limits: TaskLimits): TaskBudget | undefined {
  const r = run.budgetLedger.reservations[reservationId];
  if (!r || r.granted.tasks < 1) return undefined;
  return {
    maxTokens: Math.floor(r.granted.tokens / r.granted.tasks),
    maxToolCalls: limits.maxToolCallsPerTask ?? 40,
    maxCostUsd: (r.granted.costUsd ?? 0) / r.granted.tasks,
    deadline: deadlineOf(run),
  };
}

/** The writer may spend what the run has left, no more. */
export function synthesisBudget(run: Pick<Run, 'budgetLedger'>): TaskBudget {
  const left = available(run.budgetLedger);
  return { maxTokens: Math.floor(left.tokens), maxToolCalls: 0, maxCostUsd: left.costUsd, deadline: deadlineOf(run) };
}

/** The plan's excluded years, said in the objective too: a researcher on the web has no year filter to set. */
const withYearsLeftOut = (objective: string, run: TaskRun): string => {
  const w = run.plan?.excludeYears ?? [];
  if (!w.length) return objective;
  const years = w.map((y) => (y.from <= -9999 ? `before ${y.to + 1}` : y.to >= 9999 ? `after ${y.from - 1}` : `${y.from}–${y.to}`)).join(', ');
  return clipText(`${objective.trimEnd().replace(/([^.!?])$/, '$1.')} Leave out anything from ${years}.`, 4000);
};

/** What a search subagent is told: its objective, scope and boundaries, and how to answer. */
export function buildSearchTask(
  run: TaskRun,
  subtopic: Subtopic,
  round: number,
  index: number,
  knownSourceIds: string[],
  limits: TaskLimits,
  budget?: TaskBudget,
  excerpts: TaskContext['excerpts'] = [],
): SearchTask {
  return {
    kind: 'search',
    taskId: jobIds.task(run.id, round, index),
    runId: run.id,
    round,
    engine: run.engine,
    ...(run.corpus ? { corpus: run.corpus } : {}),
    subtopicId: subtopic.id,
    ...(subtopic.side ? { side: subtopic.side } : {}),
    query: subtopic.query,
    maxFindings: limits.findingsPerTask,
    knownSourceIds,
    context: {
      // The lead's own brief when it wrote one (a Claude plan); else the template.
      objective: withYearsLeftOut(subtopic.brief?.objective ?? `Find evidence about "${subtopic.title}" as part of research on "${run.topic}"`, run),
      topic: run.topic,
      scope: {
        include: subtopic.facetTerms,
        exclude: subtopic.excludeTerms,
        ...(run.plan?.excludeYears?.length ? { excludeYears: run.plan.excludeYears } : {}),
        ...(run.plan?.authors ? { authors: run.plan.authors } : {}),
      },
      // The same as the researcher's system prompt asks: a condensed report, not one-line claims.
      outputFormat:
        'A condensed report to the lead researcher: the findings, each with its key sentence quoted verbatim and its source; what you could not find; and where sources disagree.',
      sourceGuidance: [
        ...(subtopic.brief?.sourceTypes.length ? [`Look first in: ${subtopic.brief.sourceTypes.join('; ')}.`] : []),
        'Prefer primary sources, and sources not already known to the run; stay on the run topic; never cite a source you did not retrieve.',
      ].join(' '),
      ...(subtopic.brief?.keyQuestions.length ? { keyQuestions: subtopic.brief.keyQuestions } : {}),
      excerpts,
      ...(run.plan?.shape ? { shape: run.plan.shape } : {}),
    },
    // The lead's effort for this brief, within the task's share.
    ...(budget ? { budget: subtopic.brief ? { ...budget, maxToolCalls: Math.min(budget.maxToolCalls, subtopic.brief.toolCalls) } : budget } : {}),
  };
}

/**
 * The tasks of a dispatched round, rebuilt from the run record: the same record gives the same tasks. After the first
 * round each task also gets, as excerpts, the ledger's evidence its subtopic builds on (`evidence`: the run's findings).
 */
export function buildRoundTasks(run: Run, round: number, knownSourceIds: string[], limits: TaskLimits, evidence: readonly Finding[] = []): SearchTask[] {
  const rec = run.rounds.find((r) => r.n === round);
  if (!rec || !run.plan) return [];
  const byId = new Map(run.plan.subtopics.map((s) => [s.id, s]));
  // Every task carries its share; an engine that spends no model tokens has nothing to stop at.
  const budget = taskBudget(run, `round-${round}`, limits);
  return rec.subtopicIds.flatMap((id, i) => {
    const subtopic = byId.get(id);
    if (!subtopic) return [];
    const excerpts = round > 1 ? gapExcerpts(subtopic, run.topic, evidence) : [];
    return [buildSearchTask(run, subtopic, round, i + 1, knownSourceIds, limits, budget, excerpts)];
  });
}

/** The writer gets the findings per subtopic and exactly the ledger sources they name. */
/** `round`: the rounds the run has had. */
export function buildSynthesisTask(
  run: TaskRun & Partial<Pick<Run, 'budgetLedger'>>,
  round: number,
  plan: Plan,
  findings: Finding[],
  sources: Source[],
  limits: TaskLimits,
  brief?: WriterBrief,
): SynthesizeTask {
  const sections = plan.subtopics.map((s) => ({
    subtopicId: s.id,
    title: s.title,
    findings: findings.filter((f) => f.subtopicId === s.id).slice(0, 500),
  }));
  const named = new Set(findings.map((f) => f.sourceId));
  return {
    kind: 'synthesize',
    taskId: jobIds.write(run.id),
    runId: run.id,
    round,
    engine: run.engine,
    ...(run.corpus ? { corpus: run.corpus } : {}),
    sections,
    sources: sources.filter((s) => named.has(s.id)),
    maxCitations: limits.maxCitations,
    ...(brief ? { brief } : {}),
    ...(run.budgetLedger ? { budget: synthesisBudget({ budgetLedger: run.budgetLedger }) } : {}),
    context: {
      objective: `Write a cited research report on "${run.topic}"`,
      topic: run.topic,
      scope: { include: plan.subtopics.map((s) => s.title).slice(0, 50), exclude: [] },
      outputFormat: 'A title, a summary, and one section per subtopic; every paragraph cites sources by id with verbatim quotes.',
      sourceGuidance: 'Cite only the sources given; quotes must occur verbatim in the cited source.',
      excerpts: [],
      ...(plan.shape ? { shape: plan.shape } : {}),
    },
  };
}
