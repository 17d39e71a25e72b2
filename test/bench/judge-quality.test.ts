import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { l1Features, l1StopProbability } from '@orrery/decisions';
import { readLabelledDecisions, writeLabelledDecisions, type LabelledDecision } from '../../bench/judge/labelled-decision';
import { fitLogistic } from '../../bench/judge/logistic-fit';
import { labelRounds, scorePolicy, stopScores } from '../../bench/judge/oracle';
import { halves, trainL1, weightsModule } from '../../bench/judge/train-l1';

describe('oracle labels', () => {
  it('labels a round continue only when the next round raised section_recall by at least 0.01', () => {
    expect(labelRounds([0.5, 0.75, 0.755, 0.765, 0.7, 0.9], 6)).toEqual([
      { round: 1, gain: 0.25, oracle: 'continue' },
      { round: 2, gain: expect.closeTo(0.005, 9), oracle: 'stop' },
      { round: 3, gain: expect.closeTo(0.01, 9), oracle: 'continue' },
      { round: 4, gain: expect.closeTo(-0.065, 9), oracle: 'stop' },
      { round: 5, gain: expect.closeTo(0.2, 9), oracle: 'continue' },
    ]);
  });
  it('labels the last round of a run that ended before the cap stop (there is no next round), and none at the cap', () => {
    expect(labelRounds([0.5, 0.8], 6)).toEqual([
      { round: 1, gain: expect.closeTo(0.3, 9), oracle: 'continue' },
      { round: 2, gain: null, oracle: 'stop' },
    ]);
    expect(labelRounds([0.5, 0.8], 2)).toHaveLength(1);
  });
});

describe('policy scores against the oracle', () => {
  const runs = [
    { topic: 'a', sectionRecall: [0.5, 0.8], labels: labelRounds([0.5, 0.8], 6) }, // continue, stop
    { topic: 'b', sectionRecall: [1, 1], labels: labelRounds([1, 1], 6) }, // stop, stop
  ];
  it('scores accuracy, precision and recall of stop (a pivot is no stop)', () => {
    expect(stopScores([{ said: 'stop', oracle: 'stop' }, { said: 'pivot', oracle: 'stop' }, { said: 'stop', oracle: 'continue' }, { said: 'continue', oracle: 'continue' }])).toEqual({ decisions: 4, accuracy: 0.5, precision: 0.5, recall: 0.5 });
  });
  it('ends each run at its first stop, against the oracle and always-continue', () => {
    const s = scorePolicy(runs, [
      ['stop', 'stop'],
      ['stop', 'stop'],
    ]);
    expect(s).toMatchObject({ decisions: 4, accuracy: 0.75, precision: 0.75, recall: 1, rounds: 1, oracleRounds: 1.5, alwaysContinueRounds: 2, sectionRecall: 0.75 });
    expect(s.sectionRecallLost).toBeCloseTo(0.15, 9);
    const oracle = scorePolicy(runs, [
      ['continue', 'stop'],
      ['stop', 'stop'],
    ]);
    expect(oracle).toMatchObject({ accuracy: 1, rounds: 1.5, sectionRecallLost: 0 });
  });
});

const signals = (round: number, novelty: number): LabelledDecision['decision']['signals'] => ({ rule: 'ambiguous', round, coverage: 1, novelty, newFindings: 10, newSources: 8, tasksDispatched: 4, signal: 'continue' });
const rec = (topic: string, round: number, novelty: number, oracle: 'stop' | 'continue'): LabelledDecision => ({
  topic,
  decision: { runId: `replay:${topic}`, ts: new Date(0).toISOString(), decisionType: 'judge', level: 'L0', confidence: 0.6, conclusion: 'continue: x', signals: signals(round, novelty), stateVersion: round },
  oracle,
  gain: oracle === 'stop' ? 0 : 0.1,
});

describe('the L1 trainer', () => {
  it('learns a separable rule (stop once novelty is low) from labelled decision records', () => {
    const rows: LabelledDecision[] = [];
    // Novelty independent of the round, with a margin around the rule's boundary (0.4).
    for (let t = 0; t < 100; t++) {
      const novelty = ((t * 37) % 100) / 100;
      if (Math.abs(novelty - 0.4) < 0.05) continue;
      rows.push(rec(`topic ${t % 20}`, 1 + (t % 4), novelty, novelty < 0.4 ? 'stop' : 'continue'));
    }
    // Another decision type and another level are not what L1 judges: left out.
    rows.push({ ...rec('x', 1, 0.9, 'stop'), decision: { ...rec('x', 1, 0.9, 'stop').decision, level: 'L2' } });
    const m = trainL1(rows, 'synthetic');
    for (const r of rows.slice(0, -1)) expect(l1StopProbability(m, l1Features(r.decision.signals, m.features)) >= 0.5).toBe(r.oracle === 'stop');
    expect(l1StopProbability(m, l1Features(signals(1, 0.1), m.features))).toBeGreaterThan(0.9);
    expect(l1StopProbability(m, l1Features(signals(1, 0.9), m.features))).toBeLessThan(0.1);
    expect(m.trainedOn).toBe('synthetic');
  });
  it('fits a plain logistic regression with L2 shrinkage: a larger penalty gives smaller weights', () => {
    const x = [[0], [1], [2], [3]];
    const y = [0, 0, 1, 1];
    const loose = fitLogistic(x, y, 't', { lambda: 0.001, iterations: 2000, learningRate: 0.5, balanced: true }, ['novelty']);
    const tight = fitLogistic(x, y, 't', { lambda: 1, iterations: 2000, learningRate: 0.5, balanced: true }, ['novelty']);
    expect(loose.weights[0]).toBeGreaterThan(tight.weights[0]!);
    expect(tight.weights[0]).toBeGreaterThan(0);
    expect(() => fitLogistic([], [], 't')).toThrow(/no labelled decisions/);
  });
  it('writes weights as a module the coordinator compiles, and reads logs back, refusing a bad line', () => {
    const m = trainL1([rec('a', 1, 0.9, 'continue'), rec('b', 3, 0.1, 'stop')], 'two "topics"');
    const src = weightsModule(m);
    expect(src).toContain('export const L1_MODEL: L1Model = {');
    expect(src).toContain('trainedOn: "two \\"topics\\""');
    const dir = mkdtempSync(join(tmpdir(), 'orrery-labels-'));
    const path = join(dir, 'l.jsonl');
    writeLabelledDecisions(path, [rec('a', 1, 0.9, 'continue')]);
    expect(readLabelledDecisions(path)).toEqual([rec('a', 1, 0.9, 'continue')]);
    writeFileSync(path, JSON.stringify({ ...rec('a', 1, 0.9, 'continue'), oracle: 'maybe' }) + '\n');
    expect(() => readLabelledDecisions(path)).toThrow(/l\.jsonl:1: not a labelled decision: oracle/);
  });
  it('splits topics into two fixed halves, whatever their order', () => {
    const topics = Array.from({ length: 10 }, (_, i) => `t${i}`);
    const h = halves(topics);
    expect(halves([...topics].reverse())).toEqual(h);
    expect([...h.values()].filter((x) => x === 0)).toHaveLength(5);
  });
});
