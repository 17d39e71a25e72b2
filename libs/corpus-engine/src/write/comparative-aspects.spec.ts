import { describe, expect, it } from 'vitest';
import { comparativeReport } from './comparative-prose';
import type { ComparisonSide } from '../plan/comparison-sides';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import type { Quote } from './report-prose';
import { titleCandidates } from '@orrery/language';
import { analyzeTerms } from '@orrery/language';

const sides: ComparisonSide[] = [
  { label: 'Reagan', name: 'Ronald Reagan', subtopicId: 'side-reagan', authors: ['Ronald Reagan'], terms: [] },
  { label: 'Obama', name: 'Barack Obama', subtopicId: 'side-obama', authors: ['Barack Obama'], terms: [] },
];
const quote = (id: string, text: string, year: number, author: string): Quote => ({
  quote: text,
  citations: [{ sourceId: id, quote: text }],
  dates: [{ year, author }],
  relevance: 1,
  terms: new Set(analyzeTerms(text)),
});
const reagan = [
  quote('r1', 'We will simplify the tax code so all taxpayers are treated fairly, and we cut tax rates for every family.', 1984, 'Ronald Reagan'),
  quote('r2', 'The tax code must be simpler, and lower tax rates spur a spirit of risk-taking in the whole circumstance.', 1986, 'Ronald Reagan'),
  quote('r3', 'Tax rates came down, and the line-item veto would cut spending.', 1985, 'Ronald Reagan'),
];
const obama = [
  quote('o1', 'The best thing we could do on taxes is to simplify the tax code and close loopholes, whatever the circumstance.', 2011, 'Barack Obama'),
  quote('o2', 'A tax code riddled with loopholes punishes small businesses; the middle class deserves tax relief.', 2014, 'Barack Obama'),
  quote('o3', 'Tax breaks for millionaires should end, and the middle class should get tax breaks instead.', 2012, 'Barack Obama'),
  quote('o4', 'With Afghan forces now in the lead for their own security, our troops have moved to a support role.', 2014, 'Barack Obama'),
];

/** Reagan's and Obama's quotes compared on `subject`, each passage's text from `text` (its quote where absent). */
const compare = (subject: string, r: Quote[], o: Quote[], text: ReadonlyMap<string, string> = new Map(), company?: Map<string, number>) =>
  comparativeReport(
    subject,
    sides,
    new Map([['side-reagan', r], ['side-obama', o]]),
    new Map([...r, ...o].map((q) => [q.citations[0]!.sourceId, `${q.dates[0]!.year}, ${q.dates[0]!.author}`])),
    new Map([...r, ...o].map((q) => [q.citations[0]!.sourceId, text.get(q.citations[0]!.sourceId) ?? q.quote])),
    { vocabulary: GENERIC_VOCABULARY, isName: () => false, ...(company ? { company: () => company } : {}) },
  );

describe('a comparison told by aspect', () => {
  const titles = new Map([...reagan, ...obama].map((q) => [q.citations[0]!.sourceId, `${q.dates[0]!.year}, ${q.dates[0]!.author}`]));
  const text = new Map([...reagan, ...obama].map((q) => [q.citations[0]!.sourceId, q.quote]));
  const r = comparativeReport('taxes', sides, new Map([['side-reagan', reagan], ['side-obama', obama]]), titles, text, { vocabulary: GENERIC_VOCABULARY, isName: () => false });

  it('titles a section by a phrase both sides use, the subject word kept when the phrase needs it ("Tax code", not "Code")', () => {
    expect(r.sections[0]!.title).toBe('Tax code');
  });

  it('states the contrast in phrases, not single words', () => {
    const dwell = [...r.summary.matchAll(/dwell on ([^:]+):/g)].map((m) => m[1]!);
    expect(dwell.length).toBe(2);
    for (const d of dwell) for (const part of d.split(' and ')) expect(part.trim().split(' ').length).toBeGreaterThanOrEqual(2);
  });

  it('leaves out a quote about no aspect, and counts only what the sections cite', () => {
    const inSections = new Set(r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    expect(inSections.has('o4')).toBe(false);
    expect(r.summaryCitations.every((c) => inSections.has(c.sourceId))).toBe(true);
    const obama = /(\d+) passages? from \d+ of Barack Obama/.exec(r.summary);
    expect(Number(obama![1])).toBe([...inSections].filter((id) => id.startsWith('o')).length);
  });

  it('never titles a section by a pronoun contraction', () => {
    expect(titleCandidates("Now, I'm not naive, and we've done nothing.").map((c) => c.surface)).not.toContain("I'm");
  });

  it('names no section by one quote’s stray phrase: without an aspect both sides share, the section is the subject', () => {
    const r2 = [
      quote('a1', 'Government is not the solution; government borrowing takes from the private economy.', 1982, 'Ronald Reagan'),
      quote('a2', 'The difference tells the whole story in three words. We the people tell the government what to do.', 1987, 'Ronald Reagan'),
      quote('a3', 'Every department and agency must review its rules.', 1988, 'Ronald Reagan'),
    ];
    const o2 = [
      // The search quoted this passage's first sentence; its sentence on government is the second.
      quote('b1', 'History tells a different story.', 2009, 'Barack Obama'),
      quote('b2', 'There are twelve different agencies that deal with exports, and our forces moved to a support role.', 2011, 'Barack Obama'),
    ];
    const rr = compare('the role of government', r2, o2, new Map([['b1', `${o2[0]!.quote} Government has a role in laying the foundation for common prosperity.`]]));
    expect(rr.sections.map((s) => s.title)).toEqual(['The role of government']);
    // "agency" and "story" are shared words, but not in a sentence on government; passages with none are left out.
    const ids = rr.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
    expect(ids).not.toContain('a3');
    expect(ids).not.toContain('b2');
    // The subject's section quotes each passage's sentence on government, not "a support role".
    for (const c of rr.sections[0]!.paragraphs.flatMap((p) => p.citations)) expect(c.quote).toMatch(/[Gg]overnment/);
    // Each phrase the lede names is in the quote it gives.
    for (const m of rr.summary.matchAll(/dwell on ([^:]+): [^“]*“([^”]+)”/g)) for (const part of m[1]!.split(' and ')) expect(m[2]!.toLowerCase()).toContain(part.trim().toLowerCase());
  });
});

describe('a comparison in several aspects', () => {
  it('leaves quotes for a second aspect when one broad word is in all of them ("Tax cuts", then "Deficit")', () => {
    const say = (p: string, n: number, year: number, author: string, deficit: boolean): Quote =>
      quote(`${p}${n}`, `Our tax cuts help families number ${n}.${deficit ? ' The deficit must come down as well.' : ''}`, year + n, author);
    const r = [1, 2, 3, 4, 5].map((n) => say('r', n, 1981, 'Ronald Reagan', n >= 4));
    const o = [1, 2, 3, 4, 5].map((n) => say('o', n, 2009, 'Barack Obama', n >= 4));
    const out = compare('taxes', r, o, new Map(), new Map([['cut', 1], ['deficit', 0.8]]));
    const titles = out.sections.map((s) => s.title);
    expect(titles).toContain('Tax cuts');
    expect(titles).toContain('Deficit');
    // Each side's quotes in the deficit section say it.
    const deficit = out.sections.find((s) => s.title === 'Deficit')!;
    for (const c of deficit.paragraphs.flatMap((p) => p.citations)) expect(c.quote).toMatch(/deficit/);
    expect(new Set(deficit.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId[0])))).toEqual(new Set(['r', 'o']));
  });

  it('finds an aspect said in the passage beside the sentence on the subject, and quotes that sentence', () => {
    const passage = (id: string, year: number, author: string, n: number): { q: Quote; text: string } => {
      const first = `Nuclear weapons are a grave danger, number ${n}.`;
      return { q: quote(id, first, year, author), text: `${first} Atomic energy must serve the cause of peace.` };
    };
    const r = [passage('r1', 1981, 'Ronald Reagan', 1), passage('r2', 1982, 'Ronald Reagan', 2)];
    const o = [passage('o1', 2009, 'Barack Obama', 3), passage('o2', 2010, 'Barack Obama', 4)];
    const out = compare('nuclear weapons', r.map((x) => x.q), o.map((x) => x.q), new Map([...r, ...o].map((x) => [x.q.citations[0]!.sourceId, x.text])), new Map([['atom', 1]]));
    const atomic = out.sections.find((s) => s.title === 'Atomic energy');
    expect(atomic).toBeDefined();
    for (const c of atomic!.paragraphs.flatMap((p) => p.citations)) expect(c.quote).toMatch(/Atomic energy/);
  });
});

describe('what a side dwells on', () => {
  it('is a phrase two of its quotes say and the subject keeps company with, never one said once ("accompanying documents")', () => {
    const r = [
      quote('r1', 'The tax rates came down for every family, as the accompanying documents show.', 1982, 'Ronald Reagan'),
      quote('r2', 'Lower tax rates spur a spirit of enterprise.', 1984, 'Ronald Reagan'),
      quote('r3', 'We must stop the waste in the United States budget, and taxes must fall.', 1986, 'Ronald Reagan'),
    ];
    const o = [
      quote('o1', 'The middle class deserves tax relief, and the joint letter agrees.', 2011, 'Barack Obama'),
      quote('o2', 'Taxes on the middle class should fall.', 2012, 'Barack Obama'),
      quote('o3', 'The United States must pay its way, and taxes are how.', 2013, 'Barack Obama'),
    ];
    const out = compare('taxes', r, o, new Map(), new Map([['rate', 1], ['class', 0.8], ['budget', 0.5]]));
    const dwell = [...out.summary.matchAll(/(\w+)’s passages dwell on ([^:]+):/g)].map((m) => [m[1], m[2]]);
    expect(dwell).toEqual([
      ['Reagan', 'tax rates'],
      ['Obama', 'middle class'],
    ]);
  });
});

describe('an aspect far from the subject', () => {
  it('is not read from a sentence two away from any on the subject ("long-range pricing policy")', () => {
    const mk = (id: string, year: number, author: string, n: number): { q: Quote; text: string } => {
      const first = `Nuclear weapons are a grave danger, number ${n}.`;
      return { q: quote(id, first, year, author), text: `${first} We must keep faith with our friends. Businessmen need long-range planning for prices.` };
    };
    const r = [mk('r1', 1981, 'Ronald Reagan', 1), mk('r2', 1982, 'Ronald Reagan', 2)];
    const o = [mk('o1', 2009, 'Barack Obama', 3), mk('o2', 2010, 'Barack Obama', 4)];
    const out = compare('nuclear weapons', r.map((x) => x.q), o.map((x) => x.q), new Map([...r, ...o].map((x) => [x.q.citations[0]!.sourceId, x.text])), new Map([['rang', 1]]));
    expect(out.sections.map((s) => s.title.toLowerCase())).not.toContain('long-range planning');
    expect(out.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote))).join(' ')).not.toMatch(/Businessmen/);
  });
});

describe('a comparison of documents', () => {
  const docSides: ComparisonSide[] = [
    { label: 'pg', name: 'pg', subtopicId: 'side-pg', terms: ['pg'] },
    { label: 'ioredis', name: 'ioredis', subtopicId: 'side-ioredis', terms: ['ioredis'] },
  ];
  const undated = (id: string, text: string): Quote => ({ quote: text, citations: [{ sourceId: id, quote: text }], dates: [{ year: null, author: null }], relevance: 1, terms: new Set(analyzeTerms(text)) });
  const pg = [
    undated('pg-pool/README.md#3', 'The pool keeps idle connections open and closes an idle connection after idleTimeoutMillis.'),
    undated('pg-pool/README.md#14', 'An idle connection that loses its server emits an error on the pool.'),
  ];
  const redis = [
    undated('ioredis/README.md#7', 'A new Redis instance opens its connection at once; an idle connection is kept open.'),
    undated('ioredis/README.md#40', 'When the connection is lost, ioredis reconnects with the retryStrategy.'),
  ];
  const all = [...pg, ...redis];
  const titles = new Map(all.map((q) => [q.citations[0]!.sourceId, `${q.citations[0]!.sourceId.split('#')[0]} > Part ${q.citations[0]!.sourceId.split('#')[1]}`]));
  const text = new Map(all.map((q) => [q.citations[0]!.sourceId, q.quote]));
  const r = comparativeReport('connection handling', docSides, new Map([['side-pg', pg], ['side-ioredis', redis]]), titles, text, { vocabulary: GENERIC_VOCABULARY, isName: () => false });

  it('introduces each quote by the document and heading it is from, never by a year it does not have', () => {
    const paragraphs = r.sections.flatMap((s) => s.paragraphs.map((p) => p.text));
    expect(paragraphs.length).toBeGreaterThan(0);
    expect(`${r.summary} ${paragraphs.join(' ')}`).not.toMatch(/\bnull\b/);
    expect(paragraphs.join(' ')).toMatch(/pg-pool\/README\.md \(Part \d+\): “/);
    expect(paragraphs.join(' ')).toMatch(/ioredis\/README\.md \(Part \d+\): “/);
  });
});
