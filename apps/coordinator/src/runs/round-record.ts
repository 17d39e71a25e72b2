import type { TaskEstimate } from '@orrery/engine';
import type { Round, Run, Subtopic } from '@orrery/protocol';
import { reserve, startRound } from '../budget';

export function newRound(n: number, subtopicIds: string[], now: string): Round {
  return { n, status: 'dispatched', taskIds: [], subtopicIds, completed: 0, failed: 0, returned: 0, newFindings: 0, newSources: 0, novelty: 0, coverage: 0, startedAt: now };
}

/**
 * Opens round `n` on the run (inside a RunStore.mutate): reserves budget for its tasks first, and trims the
 * round to what the budget grants. Returns false when the budget grants nothing; the run is left unchanged.
 */
export function openRound(r: Run, n: number, subtopicIds: string[], newSubtopics: Subtopic[], perTask: TaskEstimate, now: string): boolean {
  if (!subtopicIds.length || !r.plan) return false;
  const tasks = subtopicIds.length;
  const reserved = reserve(r.budgetLedger, { id: `round-${n}`, tasks, tokens: perTask.tokens * tasks, costUsd: perTask.costUsd * tasks }, { mode: 'trim', nowMs: Date.parse(now) });
  if (!reserved.ok) return false;
  const granted = subtopicIds.slice(0, reserved.reservation.granted.tasks);
  r.budgetLedger = startRound(reserved.state, n);
  r.plan.subtopics.push(...newSubtopics.filter((s) => granted.includes(s.id)));
  r.rounds.push(newRound(n, granted, now));
  return true;
}
