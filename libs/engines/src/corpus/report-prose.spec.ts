import type { Finding } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GENERIC_VOCABULARY } from './corpus-vocabulary';
import { SOTU_VOCABULARY } from './ingest-sotu';
import { type ChosenSection, writeReport } from './report-prose';

const f = (sourceId: string, quote: string, score = 0.5): Finding => ({ id: `${sourceId}~${quote.length}`, claim: quote, sourceId, quote, subtopicId: 's', relevance: { score, topicTerms: [], facetTerms: [] } });
const titles = new Map([
  ['p1905', '1905, Theodore Roosevelt'],
  ['p1906', '1906, Theodore Roosevelt'],
  ['p1882', '1882, Chester A. Arthur'],
  ['p1924', '1924, Calvin Coolidge'],
  ['p2019', '2019, Donald J. Trump'],
  ['p2019b', '2019, Donald J. Trump'],
]);
const names = new Set(['Chinese', 'New']);
const ctx = { vocabulary: SOTU_VOCABULARY, isName: (w: string) => names.has(w) };

describe('writeReport over dated documents', () => {
  const chosen: ChosenSection[] = [
    { subtopicId: 'overview', title: 'Overview', findings: [f('p2019', 'We must secure the border.', 0.9)] },
    {
      subtopicId: 'border',
      title: 'Border security',
      findings: [f('p2019b', 'Walls work.'), f('p1924', 'Our borders need guarding against smuggling.')],
    },
    {
      subtopicId: 'chinese',
      title: 'Chinese exclusion',
      // Out of order, and two near-identical quotes from two speeches.
      findings: [
        f('p1905', 'The laws excluding Chinese laborers must be enforced with care and justice.'),
        f('p1882', 'I have signed the act restricting the immigration of Chinese laborers.'),
        f('p1906', 'The laws excluding Chinese laborers must be enforced with justice and care.'),
      ],
    },
  ];
  const r = writeReport('How have U.S. presidents talked about immigration?', chosen, titles, ctx);

  it('gives every quote its speaker and year, in time order, and the sections after the overview by their years', () => {
    expect(r.sections.map((s) => s.title)).toEqual(['Overview', 'Chinese exclusion', 'Border security']);
    const chinese = r.sections[1]!.paragraphs.map((p) => p.text);
    expect(chinese[0]).toBe('In 1882, Chester A. Arthur said: “I have signed the act restricting the immigration of Chinese laborers.”');
    // The near-duplicate is shown once, said again a year later, and both speeches stay cited.
    expect(chinese[1]).toBe('In 1905 (and again in 1906), Theodore Roosevelt said: “The laws excluding Chinese laborers must be enforced with care and justice.”');
    expect(r.sections[1]!.paragraphs[1]!.citations.map((c) => c.sourceId)).toEqual(['p1905', 'p1906']);
    // A paragraph per period: 1924 and 2019 are not one line of argument.
    expect(r.sections[2]!.paragraphs.map((p) => p.text)).toEqual(['In 1924, Calvin Coolidge said: “Our borders need guarding against smuggling.”', 'In 2019, Donald J. Trump said: “Walls work.”']);
  });

  it('cites exactly the sources chosen', () => {
    const cited = new Set(r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    expect([...cited].sort()).toEqual([...titles.keys()].sort());
  });

  it('opens with a lede built from the figures: passages, speeches, presidents, span, themes in time order', () => {
    expect(r.summary).toBe(
      '6 passages from 5 State of the Union addresses by 4 presidents speak to immigration, from Chester A. Arthur in 1882 to Donald J. Trump in 2019. ' +
        'In time order, its main themes are Chinese exclusion (1882–1905) and border security (1924–2019). ' +
        'The evidence is densest in 1900–1919 (2 of 6 passages), and Donald J. Trump is quoted most (2 passages).',
    );
    expect(r.summaryCitations.map((c) => c.sourceId)).toEqual(['p1882', 'p2019b']);
  });
});

describe('writeReport over undated passages', () => {
  it('keeps the quotes as they are, groups similar ones, and says what the report covers', () => {
    const chosen: ChosenSection[] = [
      { subtopicId: 'overview', title: 'Overview', findings: [f('a', 'Hurricane Zelda made landfall near Port Marlow.', 0.9)] },
      {
        subtopicId: 'impact',
        title: 'Storm surge',
        findings: [f('b', 'The storm surge flooded the harbor district.'), f('c', 'Storm surge flooding closed the causeway.'), f('d', 'Insurers paid four billion dollars.')],
      },
    ];
    const r = writeReport('Hurricane Zelda', chosen, new Map(), { vocabulary: GENERIC_VOCABULARY, isName: () => false });
    expect(r.sections[1]!.paragraphs.map((p) => p.text)).toEqual(['The storm surge flooded the harbor district. Storm surge flooding closed the causeway.', 'Insurers paid four billion dollars.']);
    expect(r.summary).toBe('4 passages of the corpus speak to Hurricane Zelda. The report covers 1 aspect: storm surge. Most evidence bears on storm surge (3 passages).');
    expect(r.summaryCitations.map((c) => c.sourceId)).toEqual(['a']);
  });
});
