import { describe, expect, it } from 'vitest';
import { CorpusIndex } from './corpus-index';
import { subjectForms } from './subject-forms';

/**
 * Forty passages: "trust" as a verb or a holding in 34 of them, "the trusts" (the corporations) in 6; the railroads
 * said "railroads" in half of theirs and "railroad" in the other half.
 */
function corpus(): CorpusIndex {
  const passages = [
    ...Array.from({ length: 34 }, (_, i) => ({ id: `t${i}`, text: i % 2 ? `I trust that the Congress will act on measure ${i}.` : `The funds are held in trust for the tribes, account ${i}.` })),
    ...Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, text: `The great trusts and combinations must be regulated, case ${i}.` })),
    ...Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, text: i % 2 ? `The railroads carry the mails, route ${i}.` : `The Pacific railroad reached the coast, mile ${i}.` })),
  ];
  return new CorpusIndex(passages);
}

describe('subjectForms', () => {
  const index = corpus();

  it('reads a word as the question writes it where its stem mostly carries another sense', () => {
    const { forms, says } = subjectForms(index, 'the trusts');
    expect(forms).toEqual(['trusts']);
    expect(says('The great trusts and combinations must be regulated.')).toBe(true);
    expect(says('I trust that the Congress will act.')).toBe(false);
    expect(says('The funds are held in trust.')).toBe(false);
  });

  it('leaves a word whose other forms say the same thing to its stem', () => {
    const { forms, says } = subjectForms(index, 'the railroads');
    expect(forms).toEqual([]);
    expect(says('The Pacific railroad reached the coast.')).toBe(true);
  });
});
