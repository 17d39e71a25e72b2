import type { TaskEstimate } from '@orrery/engine';
import type { ReviewSummaryRecord, Run, SignalHistoryRecord, SpendPhase, Subtopic, TokenUsage } from '@orrery/protocol';
import { chargeTokens } from '../budget';
import { openRound } from './round-record';
import { addUsage, inPhase } from './usage';

/** A policy move the handler has carried out: what the run record must now say. */
export type DecidedMove = (
  | { kind: 'round'; subtopicIds: string[]; newSubtopics: Subtopic[] }
  | { kind: 'review'; review: ReviewSummaryRecord }
  | { kind: 'synthesize' }
) & { history?: SignalHistoryRecord; usage?: TokenUsage; judgeUsage?: TokenUsage };

/**
 * Writes a decided move into the run (inside a RunStore.mutate): the model tokens it took, then the next
 * round, the pause for a person, or the writer. A round the budget grants nothing to becomes the writer.
 */
export function applyMove(r: Run, move: DecidedMove, perTask: TaskEstimate, now: string): void {
  const charge = (key: string, usage: TokenUsage | undefined, phase: SpendPhase): void => {
    if (!usage) return;
    const charged = chargeTokens(r.budgetLedger, key, usage);
    if (charged.applied) {
      r.budgetLedger = charged.state;
      r.usage = addUsage(r.usage, inPhase(usage, phase));
    }
  };
  // The judge model's tokens are the run's too: charged with the move, once, under a key of their own.
  charge(`judge-${r.rounds.length}`, move.judgeUsage, 'judging');
  // Finding the next round's gaps is planning it.
  charge(`refine-${r.rounds.length}`, move.usage, 'plan');
  if (move.history) r.signalHistory = move.history;
  if (r.status !== 'researching') return;
  if (move.kind === 'round' && openRound(r, r.rounds.length + 1, move.subtopicIds, move.newSubtopics, perTask, now)) return;
  if (move.kind === 'review') {
    r.status = 'needs_review';
    r.review = move.review;
    return;
  }
  r.status = 'synthesizing';
  // The writer is a task too (a straightforward answer needs none).
  if (r.plan?.classification !== 'straightforward') r.counters.tasksDispatched += 1;
}
