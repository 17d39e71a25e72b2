import type { Decision, Run, RunStatus, StoredRunEvent } from '@orrery/protocol';

/** A task's place in the picture: dispatched, running (progress seen), then the verdict on its result. */
export type TaskState = 'dispatched' | 'running' | 'pass' | 'partial' | 'retry' | 'discard' | 'failed';

export interface TaskView {
  taskId: string;
  round: number;
  kind: string;
  /** The spoke it sits on: its subtopic, or its own title when it has none. */
  spokeId: string;
  title: string;
  state: TaskState;
  findings?: number;
  newSources?: number;
  note?: string;
}

export interface SpokeView {
  id: string;
  title: string;
}

export interface RoundView {
  n: number;
  completed: boolean;
  coverage?: number;
  novelty?: number;
  newFindings?: number;
}

/** What the live view shows of one run, built from its event stream (and topped up from its record). */
export interface LiveRun {
  runId: string;
  topic?: string;
  engine?: string;
  corpus?: string;
  status: RunStatus;
  classification?: string;
  createdTs?: string;
  spokes: SpokeView[];
  tasks: TaskView[];
  rounds: RoundView[];
  /** Every decision but the per-task result verdicts, which the picture shows instead. */
  decisions: Decision[];
  writer: 'idle' | 'running' | 'done';
  report?: { sections: number; citations: number };
  finished?: { status: RunStatus; error?: string };
  /** Set while the run waits on the model provider (its breaker is open). */
  waiting?: { reason: string; since: string };
  lastEventId?: string;
}

export const TERMINAL: readonly RunStatus[] = ['done', 'failed', 'cancelled'];

export function emptyRun(runId: string): LiveRun {
  return { runId, status: 'queued', spokes: [], tasks: [], rounds: [], decisions: [], writer: 'idle' };
}

type Signals = Decision['signals'];

/** The coordinator's verdicts on a result, as the page draws them; which one applies is decided there alone. */
const STATE_OF_VERDICT: Record<string, TaskState> = { pass: 'pass', 'pass-partial': 'partial', retry: 'retry', discard: 'discard' };

/** A result verdict as a task state: pass, partial (some findings kept), retry (asked again) or discard. */
export function taskStateOfVerdict(signals: Signals, conclusion: string): TaskState {
  const verdict = typeof signals.verdict === 'string' ? signals.verdict : /^(pass-partial|pass|retry|discard)\b/.exec(conclusion)?.[1];
  return STATE_OF_VERDICT[verdict ?? ''] ?? 'pass';
}

function spoke(run: LiveRun, id: string, title: string): void {
  const known = run.spokes.find((s) => s.id === id);
  if (known) known.title = title || known.title;
  else run.spokes.push({ id, title });
}

function round(run: LiveRun, n: number): RoundView {
  let r = run.rounds.find((x) => x.n === n);
  if (!r) {
    r = { n, completed: false };
    run.rounds.push(r);
    run.rounds.sort((a, b) => a.n - b.n);
  }
  return r;
}

const isWriter = (taskId: string) => /\.write$/.test(taskId);

/** Applies one event. Events arrive in stream order; one seen before (same stream id) changes nothing. */
export function applyEvent(run: LiveRun, e: StoredRunEvent): void {
  if (run.lastEventId && compareIds(e.id, run.lastEventId) <= 0) return;
  run.lastEventId = e.id;
  switch (e.type) {
    case 'run.created':
      run.topic = e.topic;
      run.engine = e.engine;
      if (e.corpus) run.corpus = e.corpus;
      run.createdTs = e.ts;
      break;
    case 'run.status':
      if (!run.finished) run.status = e.status;
      if (e.status === 'synthesizing' && run.writer === 'idle') run.writer = 'running';
      break;
    case 'plan.ready':
      run.classification = e.plan.classification;
      for (const s of e.plan.subtopics) spoke(run, s.id, s.title);
      break;
    case 'round.started':
      round(run, e.round);
      for (const t of e.tasks) {
        if (run.tasks.some((x) => x.taskId === t.taskId)) continue;
        const spokeId = t.subtopicId ?? `task:${t.title}`;
        if (!run.spokes.some((s) => s.id === spokeId)) spoke(run, spokeId, t.title);
        run.tasks.push({ taskId: t.taskId, round: e.round, kind: t.kind, spokeId, title: t.title, state: 'dispatched' });
      }
      break;
    case 'task.progress': {
      if (isWriter(e.taskId)) {
        run.writer = e.stage === 'done' ? 'done' : 'running';
        break;
      }
      const t = run.tasks.find((x) => x.taskId === e.taskId);
      if (t && t.state === 'dispatched') t.state = 'running';
      if (t) t.note = e.message;
      break;
    }
    case 'task.completed': {
      const t = run.tasks.find((x) => x.taskId === e.taskId);
      if (t) {
        t.findings = e.findings;
        t.newSources = e.newSources;
        if (t.state === 'dispatched' || t.state === 'running') t.state = 'pass';
      }
      break;
    }
    case 'task.failed': {
      if (isWriter(e.taskId)) break;
      const t = run.tasks.find((x) => x.taskId === e.taskId);
      if (t) {
        t.state = 'failed';
        t.note = e.error;
      }
      break;
    }
    case 'round.completed': {
      const r = round(run, e.round);
      Object.assign(r, { completed: true, coverage: e.coverage, novelty: e.novelty, newFindings: e.newFindings });
      break;
    }
    case 'decision': {
      const d = e.decision;
      if (d.decisionType === 'result-verdict') {
        const t = run.tasks.find((x) => x.taskId === d.signals.taskId);
        if (t) {
          t.state = taskStateOfVerdict(d.signals, d.conclusion);
          t.note = d.conclusion;
        }
      } else {
        run.decisions.push(d);
      }
      break;
    }
    case 'report.ready':
      run.report = { sections: e.sections, citations: e.citations };
      run.writer = 'done';
      break;
    case 'run.waiting':
      run.waiting = { reason: e.waiting.reason, since: e.waiting.since };
      break;
    case 'run.resumed':
      delete run.waiting;
      break;
    case 'run.finished':
      delete run.waiting;
      run.status = e.status;
      run.finished = { status: e.status, ...(e.error ? { error: e.error } : {}) };
      break;
  }
}

/** Tops the view up from the run's record: subtopics a refinement added, and the status once it is settled. */
export function applyRecord(run: LiveRun, record: Run): void {
  run.topic ??= record.topic;
  run.engine ??= record.engine;
  if (record.corpus) run.corpus ??= record.corpus;
  run.createdTs ??= record.createdAt;
  for (const s of record.plan?.subtopics ?? []) spoke(run, s.id, s.title);
  if (!run.finished) run.status = record.status;
}

/** Redis Stream ids: `ms-seq`, compared as numbers. */
export function compareIds(a: string, b: string): number {
  const [a1 = 0, a2 = 0] = a.split('-').map(Number);
  const [b1 = 0, b2 = 0] = b.split('-').map(Number);
  return a1 !== b1 ? a1 - b1 : a2 - b2;
}
