import { resolve } from 'node:path';
import { CorpusCoordinatorEngine, CorpusRegistry, CorpusSubagentEngine } from '@orrery/corpus-engine';
import { describe, expect, it } from 'vitest';
import { judgmentsByTopic, type Qrel } from '../../bench/coverage/score';
import { REPLAY_ROUND_CAP, replayTopic } from '../../bench/judge/judge-replay';
import { labelRounds } from '../../bench/judge/oracle';

const FIXTURE = resolve(__dirname, '..', 'fixtures', 'kestrel.jsonl');
const TOPIC = 'Kestrel River';
const qrels: Qrel[] = ['fisheries-01', 'fisheries-02', 'dams-05', 'dams-06', 'floods-09', 'floods-10', 'navigation-13', 'navigation-14'].map((id) => ({ id: `kr-${id}`, topic: TOPIC, section: id.split('-')[0]! }));

describe('the judge replay on a tiny corpus', () => {
  it('continues every round, gives the judge the input the service would, and scores the report after each round', async () => {
    const registry = new CorpusRegistry({ builtins: false, store: null });
    registry.register('bench', FIXTURE);
    const r = await replayTopic(new CorpusCoordinatorEngine(registry, 'bench'), new CorpusSubagentEngine(registry, 'bench'), TOPIC, judgmentsByTopic(qrels).get(TOPIC)!);
    expect(r.rounds.length).toBeGreaterThanOrEqual(1);
    expect(r.rounds.length === REPLAY_ROUND_CAP ? 'cap' : 'refine-empty').toBe(r.ended);
    for (const [i, x] of r.rounds.entries()) {
      const n = i + 1;
      expect(x.input).toMatchObject({ goal: TOPIC, round: n, stateVersion: n, targetCoverage: 0.8, history: { pivotCount: 0, lastPivotRound: null } });
      expect(x.input.state.budgetLeft.rounds).toBeCloseTo(1 - n / REPLAY_ROUND_CAP, 9);
      expect(x.input.state.subtopics.length).toBeGreaterThan(0);
      expect(x.input.lastActions.tasksDispatched).toBeGreaterThan(0);
      expect(x.sectionRecall).toBeGreaterThanOrEqual(0);
      expect(x.sectionRecall).toBeLessThanOrEqual(1);
    }
    // The first round finds something on a four-facet corpus.
    expect(r.rounds[0]!.input.lastActions.newFindings).toBeGreaterThan(0);
    expect(r.rounds[0]!.input.state.idleRounds).toBe(0);
    expect(r.rounds[0]!.sectionRecall).toBeGreaterThan(0);
    expect(labelRounds(r.rounds.map((x) => x.sectionRecall), REPLAY_ROUND_CAP)).toHaveLength(Math.min(r.rounds.length, REPLAY_ROUND_CAP - 1));
  });
});
