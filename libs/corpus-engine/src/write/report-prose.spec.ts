import type { Finding } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import { SOTU_VOCABULARY } from '@orrery/passages/ingest';
import { citedFigures } from './report-figures';
import { type ChosenSection, writeReport } from './report-prose';
import { titleGrounded } from './section-titles';
import { reportShape } from '@orrery/language';

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

/** Every number the lede states, checked against the figures recomputed from the sources the report cites. */
function ledeNumbersHold(summary: string, cited: readonly string[], titleOf: (id: string) => string | undefined): void {
  const fig = citedFigures(cited, titleOf);
  const m = /The report cites (\d+) passages? from (\d+) [^,.]*? by (\d+) presidents?, (\d{4})(?:–(\d{4}))?\./.exec(summary);
  expect(m, summary).not.toBeNull();
  expect([Number(m![1]), Number(m![2]), Number(m![3]), Number(m![4])]).toEqual([fig.passages, fig.documents, fig.authors, fig.from!.year]);
  if (m![5]) expect(Number(m![5])).toBe(fig.to!.year);
  const dense = /densest in (\d{4})–(\d{4}) \((\d+) of (\d+) passages\)/.exec(summary);
  if (dense) expect([Number(dense[1]), Number(dense[3]), Number(dense[4])]).toEqual([fig.densest!.from, fig.densest!.passages, fig.passages]);
  const most = /, and (.+?) is quoted most \((\d+) passages\)/.exec(summary);
  if (most) expect([most[1], Number(most[2])]).toEqual([fig.mostQuoted!.author, fig.mostQuoted!.passages]);
}

const citedIds = (r: ReturnType<typeof writeReport>): string[] => [...new Set([...r.summaryCitations, ...r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations))].map((c) => c.sourceId))];

describe('writeReport over dated documents', () => {
  const chosen: ChosenSection[] = [
    { subtopicId: 'overview', title: 'Overview', findings: [f('p2019', 'We must secure the border against smuggling and trafficking.', 0.9)] },
    {
      subtopicId: 'border',
      title: 'Border security',
      findings: [f('p2019b', 'Border walls work to stop illegal immigration.'), f('p1924', 'Our border needs guarding against smuggling of aliens.')],
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
    // A facet title that is a month, and one whose words its quotes never use; and a passage cited again
    // (p1905 in a second section, another sentence): one passage, however often it is quoted.
    { subtopicId: 'june', title: 'June', findings: [f('p1905', 'On June 30 the steamship companies brought over a million immigrants.'), f('p1906', 'The steamship companies must answer for the immigrants they bring.')] },
    { subtopicId: 'tax', title: 'Tax credit', findings: [f('p1924', 'Quotas for immigrants from southern Europe remain in force.')] },
  ];
  const r = writeReport('How have U.S. presidents talked about immigration?', chosen, titles, ctx);

  it('gives every quote its speaker and year, in time order, and the sections after the overview by their years', () => {
    expect(r.sections[0]!.title).toBe('Overview');
    const chinese = r.sections.find((s) => s.subtopicId === 'chinese')!.paragraphs.map((p) => p.text);
    expect(chinese[0]).toBe('In 1882, Chester A. Arthur said: “I have signed the act restricting the immigration of Chinese laborers.”');
    // The near-duplicate is shown once, said again a year later, and both speeches stay cited.
    expect(chinese[1]).toBe('In 1905 (and again in 1906), Theodore Roosevelt said: “The laws excluding Chinese laborers must be enforced with care and justice.”');
  });

  it('cites exactly the sources chosen', () => {
    expect(citedIds(r).sort()).toEqual([...titles.keys()].sort());
  });

  it('titles each section with a keyphrase of its own quotes: no month, no office, nothing its quotes do not say', () => {
    for (const s of r.sections.filter((x) => x.subtopicId !== 'overview')) {
      const quotes = s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote ?? ''));
      expect(titleGrounded(s.title, quotes), `${s.title}: ${quotes.join(' | ')}`).toBe(true);
    }
    expect(r.sections.map((s) => s.title)).not.toContain('June');
    expect(r.sections.map((s) => s.title)).not.toContain('Tax credit');
    expect(r.sections.find((s) => s.subtopicId === 'june')!.title).toBe('Steamship companies');
  });

  it('opens with what was found, each finding quoted and cited, then counts that hold against the cited sources', () => {
    expect(r.summary).toMatch(/^In \d{4}, [^:]+ said: “/);
    expect(r.summaryCitations.length).toBeGreaterThanOrEqual(2);
    for (const c of r.summaryCitations) expect(r.summary).toContain(c.quote!);
    ledeNumbersHold(r.summary, citedIds(r), (id) => titles.get(id));
    // p1905 is quoted in two sections: it is one passage of 1900–1919, not two.
    expect(r.summary).toContain('The report cites 6 passages from 5 State of the Union addresses by 4 presidents, 1882–2019.');
  });
});

describe('writeReport for a change over time', () => {
  it('tells it in periods, and the lede says what changed from the first to the last', () => {
    const chosen: ChosenSection[] = [
      { subtopicId: 'overview', title: 'Overview', findings: [f('p1882', 'I have signed the act restricting the immigration of Chinese laborers.'), f('p1905', 'The steamship companies bring the immigrants in great numbers.')] },
      { subtopicId: 'x', title: 'X', findings: [f('p1906', 'The steamship companies solicit immigrants abroad.'), f('p2019', 'Illegal immigration hurts American workers.'), f('p2019b', 'Illegal immigration must end at the border.'), f('p1924', 'Our quotas keep immigration in bounds.')] },
    ];
    const topic = 'How has the way presidents talk about immigration changed over time?';
    const r = writeReport(topic, chosen, titles, { ...ctx, shape: reportShape(topic) });
    expect(r.sections.map((s) => s.title)[0]).toMatch(/^1882–\d{4}: /);
    expect(r.sections.map((s) => s.title).at(-1)).toMatch(/^\d{4}(–\d{4})?: Illegal immigration$/);
    expect(r.summary).toMatch(/^What changed: the passages speak in 1882–\d{4} of .+, and by \d{4}(–\d{4})? of illegal immigration\./);
    ledeNumbersHold(r.summary, citedIds(r), (id) => titles.get(id));
  });
});

describe('writeReport over undated passages', () => {
  it('keeps the quotes as they are, groups similar ones, and opens with what they say', () => {
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
    expect(r.summary).toMatch(/^The passages say: “/);
    expect(r.summary).toMatch(/The report cites 4 passages\.$/);
  });
});

describe('a report with nothing from the speaker the question names', () => {
  it('says that the speaker never speaks of the subject', () => {
    const ctx = { vocabulary: GENERIC_VOCABULARY, isName: () => false, shape: { kind: 'survey' as const, sides: [], subject: 'foreign alliances' }, speakers: ['George Washington'] };
    expect(writeReport('What did Washington say about foreign alliances?', [], new Map(), ctx).summary).toBe('The corpus holds no passage in which George Washington speaks of foreign alliances.');
  });
});
