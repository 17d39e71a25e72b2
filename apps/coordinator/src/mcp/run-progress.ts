import type { StoredRunEvent } from '@orrery/protocol';
import { counted } from '@orrery/engine';

const pct = (x: number) => `${Math.round(x * 100)}%`;

/**
 * What a progress notification says about a run event; undefined for events an agent need not see
 * (per-task stage messages, decisions). Plan, tasks done, rounds and coverage, in the stream's order.
 */
export function progressMessage(e: StoredRunEvent, tasksInRound: Map<number, number>, doneInRound: Map<number, number>): string | undefined {
  switch (e.type) {
    case 'plan.ready':
      return `plan: ${counted(e.plan.subtopics.length, 'subtopic')}`;
    case 'round.started':
      tasksInRound.set(e.round, e.tasks.length);
      return `round ${e.round}: ${counted(e.tasks.length, 'task')} dispatched`;
    case 'task.completed':
    case 'task.failed': {
      const done = (doneInRound.get(e.round) ?? 0) + 1;
      doneInRound.set(e.round, done);
      const of = tasksInRound.get(e.round);
      return `round ${e.round}: task ${e.type === 'task.failed' ? 'failed' : 'done'} (${done}${of ? `/${of}` : ''})`;
    }
    case 'round.completed':
      return `round ${e.round} done: coverage ${pct(e.coverage)}, novelty ${pct(e.novelty)}, ${counted(e.newFindings, 'new finding')}`;
    case 'report.ready':
      return `report: ${counted(e.sections, 'section')}, ${counted(e.citations, 'citation')}`;
    case 'run.waiting':
      return `waiting: ${e.waiting.reason}`;
    case 'run.resumed':
      return `resumed after waiting ${Math.round(e.waitedMs / 1000)} s on the model provider`;
    case 'run.finished':
      return `run ${e.status}${e.error ? `: ${e.error}` : ''}`;
    default:
      return undefined;
  }
}
