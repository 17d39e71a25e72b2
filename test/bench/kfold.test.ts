import { describe, expect, it } from 'vitest';
import { choose, foldsOf, kfold } from '../../bench/coverage/kfold-eval';
import type { TopicScore } from '../../bench/coverage/score';

const score = (topic: string, precision: number, sectionRecall: number): TopicScore => ({ topic, precision, sectionRecall, passageRecall: 0, citations: 20 });

describe('k-fold over the topics', () => {
  const topics = Array.from({ length: 8 }, (_, i) => `topic ${i}`);
  it('splits the topics into k folds of near-equal size, the same way every time', () => {
    const folds = foldsOf(topics, 4);
    expect(foldsOf([...topics].reverse(), 4)).toEqual(folds);
    const sizes = [0, 1, 2, 3].map((f) => [...folds.values()].filter((x) => x === f).length);
    expect(sizes).toEqual([2, 2, 2, 2]);
  });

  it('scores each fold with the configuration chosen on the others, so tuning to a topic shows up as a gap', () => {
    // "tuned" is better on one topic only, by a lot: chosen on all topics, it looks best; k-fold sees it fail elsewhere.
    const rows = new Map<string, Map<string, TopicScore>>([
      ['defaults', new Map(topics.map((t) => [t, score(t, 0.95, 0.92)]))],
      ['tuned', new Map(topics.map((t) => [t, t === 'topic 3' ? score(t, 1, 1) : score(t, 0.95, 0.915)]))],
    ]);
    expect(choose(rows, topics)).toBe('tuned');
    const folds = foldsOf(topics, 4);
    const k = kfold(rows, folds, 4);
    const foldOf3 = folds.get('topic 3')!;
    expect(k.chosen[foldOf3]).toBe('defaults');
    expect(k.macro.sectionRecall).toBeLessThan(0.92);
  });
});
