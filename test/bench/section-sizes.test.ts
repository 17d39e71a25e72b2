import { describe, expect, it } from 'vitest';
import { judgmentsByTopic } from '../../bench/coverage/score';
import { lengthCeiling, recallOverLongSections, sectionWords, sameWordsCeiling } from '../../bench/coverage/section-sizes';

const texts = new Map([
  ['a1', 'Storm Zelda formed over the warm Atlantic waters in late August of that year.'],
  ['a2', 'Zelda then weakened.'],
  ['a3', 'Notes.'],
  ['b1', 'The Zeta Prize is awarded every spring to a young composer of chamber music.'],
  ['b2', 'Notes.'],
  ['x1', 'key'],
  ['b3', 'Key:.'],
]);
const textOf = (id: string): string => texts.get(id)!;
const topics = [
  ...judgmentsByTopic([
    { id: 'a1', topic: 'Storm Zelda', section: 'History' },
    { id: 'a2', topic: 'Storm Zelda', section: 'History' },
    { id: 'a3', topic: 'Storm Zelda', section: 'Notes' },
    { id: 'b1', topic: 'Zeta Prize', section: 'Award' },
    { id: 'b2', topic: 'Zeta Prize', section: 'Notes' },
    { id: 'b3', topic: 'Zeta Prize', section: 'Winners' },
  ]).values(),
];

describe('section sizes and the section_recall they bound', () => {
  it('counts the words of each section over all its passages', () => {
    expect(sectionWords(topics[0]!, textOf)).toEqual(new Map([['History', 17], ['Notes', 1]]));
  });

  it('bounds section_recall by the sections long enough to reach', () => {
    expect(lengthCeiling(topics, textOf, 1)).toBe(1);
    // Zelda keeps History (1 of 2), the prize keeps Award (1 of 3).
    expect(lengthCeiling(topics, textOf, 10)).toBeCloseTo((1 / 2 + 1 / 3) / 2);
  });

  it('scores reports over the long sections only', () => {
    const cited = new Map([['Storm Zelda', ['a2', 'b1']], ['Zeta Prize', ['b2']]]);
    // Zelda: History reached (1/1); the prize: Award not reached (0/1); b1 cited for Zelda counts nowhere.
    expect(recallOverLongSections(cited, topics, textOf, 10)).toBe(0.5);
  });

  it('leaves out only sections whose every passage has the words of one in another article', () => {
    // "Notes." is in both articles; "Key:" is in the prize's article and, as "key", in a passage no topic owns (x1).
    expect(sameWordsCeiling(topics, textOf, [...texts.keys()])).toBeCloseTo((1 / 2 + 1 / 3) / 2);
    expect(sameWordsCeiling(topics, textOf, ['a1', 'a2', 'a3', 'b1', 'b3'])).toBeCloseTo((1 + 2 / 3) / 2);
  });
});
