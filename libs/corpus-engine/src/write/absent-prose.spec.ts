import { describe, expect, it } from 'vitest';
import type { Finding } from '@orrery/protocol';
import { absentReport } from './absent-prose';

const finding = (sourceId: string, quote: string, score: number): Finding => ({ id: `${sourceId}~q`, claim: quote, sourceId, quote, subtopicId: 's', relevance: { score, topicTerms: [], facetTerms: [] } });

const salutation = finding('ford-1975', 'Mr. Speaker, Mr. Vice President, Members of the 94th Congress, and distinguished guests.', 0.9);
const army = finding('buchanan-1859', 'A portion of the army having pronounced against it, its functions were declared terminated.', 0.8);
const currency = finding('cleveland-1893', 'The currency of the country should be sound and stable.', 0.5);
const titles = new Map([['ford-1975', 'Gerald R. Ford, 1975'], ['buchanan-1859', 'James Buchanan, 1859'], ['cleveland-1893', 'Grover Cleveland, 1893']]);

describe('absentReport', () => {
  it('cites no passage that shares no word with the subject, and says why', () => {
    const r = absentReport('cryptocurrency and bitcoin', ['cryptocurrency', 'bitcoin'], [salutation, army], titles);
    expect(r.summary).toBe('The corpus does not answer this: no passage of it mentions “cryptocurrency” and “bitcoin”. No passage shares a word with the question, so none is cited.');
    expect(r.sections).toEqual([]);
  });

  it('cites the nearest passages that share a word with the subject, best first', () => {
    const r = absentReport('bitcoin currency', ['bitcoin'], [salutation, army, currency], titles);
    expect(r.summary).toMatch(/The passage nearest to it is below; it does not answer it\.$/);
    expect(r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)))).toEqual(['cleveland-1893']);
    expect(r.sections.map((s) => s.title)).toEqual(['Currency']);
  });
});
