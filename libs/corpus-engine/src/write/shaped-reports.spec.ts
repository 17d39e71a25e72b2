import type { Finding, SearchTask, Source, SynthesizeTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { classifyRequest, analyzeTerms } from '@orrery/language';
import { CorpusCoordinatorEngine } from '../plan/corpus-coordinator-engine';
import { CorpusRegistry } from '../index/corpus-registry';
import { CorpusSubagentEngine } from '../search/corpus-subagent-engine';
import { titleParts } from '../index/documents';
import { citedFigures } from './report-figures';

const registry = new CorpusRegistry({ store: null });
const coord = new CorpusCoordinatorEngine(registry, 'sotu');
const sub = new CorpusSubagentEngine(registry, 'sotu');

/** One round of the loop in-process: the plan, a search per subtopic, the writer over what they found. */
async function research(topic: string) {
  const { plan } = await coord.plan({ runId: 'r', topic, maxSubtopics: 8, classification: classifyRequest(topic).class, coverageCheck: true });
  const findings: Finding[] = [];
  const sources = new Map<string, Source>();
  for (const [i, s] of plan.subtopics.entries()) {
    const task: SearchTask = {
      kind: 'search',
      taskId: `r.1.${i}`,
      runId: 'r',
      round: 1,
      engine: 'corpus',
      corpus: 'sotu',
      subtopicId: s.id,
      query: s.query,
      maxFindings: 6,
      knownSourceIds: [],
      // As the hub builds tasks: the plan's years left out and its authors go to every search.
      context: { objective: s.title, topic, scope: { include: s.facetTerms, exclude: s.excludeTerms, ...(plan.excludeYears ? { excludeYears: plan.excludeYears } : {}), ...(plan.authors ? { authors: plan.authors } : {}) }, outputFormat: '', sourceGuidance: '', excerpts: [] },
    };
    const r = await sub.search(task, () => undefined);
    findings.push(...r.findings);
    for (const src of r.sources) sources.set(src.id, src);
  }
  const synth: SynthesizeTask = {
    kind: 'synthesize',
    taskId: 'r.write',
    runId: 'r',
    round: 1,
    engine: 'corpus',
    corpus: 'sotu',
    sections: plan.subtopics.map((s) => ({ subtopicId: s.id, title: s.title, findings: findings.filter((f) => f.subtopicId === s.id) })),
    sources: [...sources.values()],
    maxCitations: 25,
    context: { objective: topic, topic, scope: { include: [], exclude: [] }, outputFormat: '', sourceGuidance: '', excerpts: [] },
  };
  const report = await sub.synthesize(synth, () => undefined);
  const title = (id: string): string => sources.get(id)?.title ?? id;
  return { plan, report, title };
}

describe('a comparison on the bundled speeches', () => {
  it('brings evidence from each side, balanced, with both sides in every section and a lede that contrasts them', async () => {
    const { plan, report, title } = await research('How did Lincoln and FDR differ in how they talked about war?');
    expect(plan.subtopics.map((s) => s.id)).toEqual(['overview', 'side-lincoln', 'side-fdr']);
    const cited = [...new Set([...(report.summaryCitations ?? []), ...report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations))].map((c) => c.sourceId))];
    const by = (name: string) => cited.filter((id) => titleParts(title(id)).author === name).length;
    const lincoln = by('Abraham Lincoln');
    const fdr = by('Franklin D. Roosevelt');
    // Nothing from the 15 other presidents the topic's words reach, and at least 3 passages each.
    expect(lincoln + fdr).toBe(cited.length);
    expect(Math.min(lincoln, fdr)).toBeGreaterThanOrEqual(3);
    for (const s of report.sections) {
      const authors = new Set(s.paragraphs.flatMap((p) => p.citations.map((c) => titleParts(title(c.sourceId)).author)));
      expect([...authors].sort(), s.title).toEqual(['Abraham Lincoln', 'Franklin D. Roosevelt']);
    }
    expect(report.summary).toMatch(/^Abraham Lincoln and Franklin D\. Roosevelt both speak of war/);
    // Each side's sentence quotes it; it names what that side dwells on only where two of its quotes say it.
    expect(report.summary).toMatch(/Lincoln’s passages (dwell on .+|speak of it): In 18\d\d, Abraham Lincoln said: “.+” Roosevelt’s passages (dwell on .+|speak of it): In 19\d\d, Franklin D\. Roosevelt said: “/);
    // The side counts hold against the cited sources.
    const f = (name: string) => citedFigures(cited.filter((id) => titleParts(title(id)).author === name), title);
    const l = f('Abraham Lincoln');
    const r = f('Franklin D. Roosevelt');
    expect(report.summary).toContain(`The report cites ${l.passages} passages from ${l.documents} of Abraham Lincoln’s State of the Union addresses (${l.from!.year}–${l.to!.year})`);
    expect(report.summary).toContain(`${r.passages} passages from ${r.documents} of Franklin D. Roosevelt’s State of the Union addresses (${r.from!.year}–${r.to!.year})`);
  }, 300_000);
});

describe('a comparison told in aspects', () => {
  it('sets both sides side by side on what the subject keeps company with, each section about its title', async () => {
    const { report, title } = await research('Reagan vs Obama on taxes');
    const aspects = report.sections.filter((s) => analyzeTerms(s.title).some((t) => t !== 'tax'));
    expect(aspects.length, report.sections.map((s) => s.title).join(' | ')).toBeGreaterThanOrEqual(2);
    for (const s of aspects) {
      const authors = new Set(s.paragraphs.flatMap((p) => p.citations.map((c) => titleParts(title(c.sourceId)).author)));
      expect([...authors].sort(), s.title).toEqual(['Barack Obama', 'Ronald Reagan']);
      const words = analyzeTerms(s.title).filter((t) => t !== 'tax');
      for (const c of s.paragraphs.flatMap((p) => p.citations)) expect(words.every((w) => analyzeTerms(c.quote ?? '').includes(w)), `${s.title}: ${c.quote}`).toBe(true);
    }
  }, 300_000);
});

describe('a comparison on a word whose stem has another sense', () => {
  it('reads "the trusts" as the trusts, not "I trust" or "held in trust", and says first which side is silent', async () => {
    const { report, title } = await research('Contrast Theodore Roosevelt with Woodrow Wilson on the trusts.');
    const quotes = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations));
    expect(quotes.length).toBeGreaterThanOrEqual(3);
    // Every passage cited says "trusts"; most quotes say it themselves (a few say the aspect beside it).
    const passages = new Map(report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => [c.sourceId, c.quote ?? ''] as const))));
    expect(quotes.filter((c) => /\btrusts\b/i.test(c.quote ?? '')).length * 2).toBeGreaterThan(quotes.length);
    expect(report.summary).not.toMatch(/I trust|in trust/);
    // Wilson's addresses speak of monopoly, never of "trusts": the report says so first, and cites none of them.
    expect(report.summary).toMatch(/^Only Theodore Roosevelt speaks of the trusts; the corpus holds no word from Woodrow Wilson on the trusts\./);
    expect([...passages.keys()].every((id) => titleParts(title(id)).author === 'Theodore Roosevelt')).toBe(true);
  }, 300_000);
});

describe('a question bounded in years', () => {
  it('is answered from those years only', async () => {
    const { plan, report, title } = await research('How has the discussion of education changed since 1900?');
    expect(plan.excludeYears).toEqual([{ from: -9999, to: 1899 }]);
    const years = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => titleParts(title(c.sourceId)).year!)));
    expect(years.length).toBeGreaterThan(10);
    expect(Math.min(...years)).toBeGreaterThanOrEqual(1900);
  }, 300_000);
});

describe('a question that names who speaks', () => {
  it('is answered from that speaker\'s addresses only, and its count names the speaker', async () => {
    const { plan, report, title } = await research('What did Reagan say about taxes?');
    expect(plan.authors).toEqual(['Ronald Reagan']);
    const cited = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
    expect(cited.length).toBeGreaterThanOrEqual(8);
    expect(cited.every((id) => titleParts(title(id)).author === 'Ronald Reagan')).toBe(true);
    expect(report.summary).toMatch(/addresses by Ronald Reagan, 19\d\d–19\d\d\./);
  }, 300_000);

  it('cites what the speaker said of it even once: Wilson on the League of Nations', async () => {
    const { report, title } = await research('What did Wilson say about the League of Nations?');
    const cited = report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations));
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.every((c) => titleParts(title(c.sourceId)).author === 'Woodrow Wilson' && /League of Nations/.test(c.quote))).toBe(true);
  }, 300_000);

  it('is not scoped to a president it names as its subject', async () => {
    const { plan } = await research('How have presidents talked about Lincoln?');
    expect(plan.authors).toBeUndefined();
  }, 300_000);
});

describe('a question that asks which presidents', () => {
  it('is answered first with who spoke of it and when, from the passages it cites', async () => {
    const { report, title } = await research('Which presidents have discussed climate change?');
    const cited = [...new Set(report.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))))].map((id) => titleParts(title(id)));
    const authors = [...new Set(cited.map((c) => c.author!))];
    expect(report.summary.startsWith(`${authors.length} presidents speak of climate change in the passages cited: `)).toBe(true);
    for (const a of authors) expect(report.summary).toContain(a);
    // Climate change, not the climate of the Mississippi valley in 1803.
    expect(Math.min(...cited.map((c) => c.year!))).toBeGreaterThanOrEqual(1990);
  }, 300_000);
});

describe('a subject the speeches never mention', () => {
  it('says so plainly and cites no passage that shares no word with it', async () => {
    const { plan, report } = await research('What have presidents said about cryptocurrency and bitcoin?');
    // The plan searches its overview only: facets of the nearest passages ("Senate", "Mr.") name nothing of it.
    expect(plan.subtopics.map((s) => s.id)).toEqual(['overview']);
    expect(report.summary).toMatch(/^The corpus does not answer this: no passage of it mentions “cryptocurrency” and “bitcoin”\. No passage shares a word with the question/);
    expect(report.sections).toEqual([]);
    expect(report.unanswered).toBe(true);
  }, 300_000);
});

describe('how a subject was talked about, over the speeches', () => {
  it('organises the evidence by theme in time: titles the quotes share, periods in order, a lede that names the arc', async () => {
    const { plan, report, title } = await research('How have U.S. presidents talked about immigration?');
    // The plan's subtopics are what immigration keeps company with, not a turn of phrase or a place its passages share.
    const planned = plan.subtopics.map((s) => s.title);
    expect(planned).toEqual(expect.arrayContaining(['Undesirable immigrants', 'Steamship companies', 'Illegal immigration']));
    expect(planned).not.toContain('Right kind');
    expect(planned).not.toContain('New York');
    const sections = report.sections;
    const bare = (t: string): string => t.replace(/^\d{4}(–\d{4})?: /, '');
    // Themes a historian names: at least three of these, as titles.
    const named = [/chinese/i, /steamship/i, /restrict|quota/i, /refugee/i, /illegal|enforce|border/i, /reform/i].filter((re) => sections.some((s) => re.test(s.title)));
    expect(named.length).toBeGreaterThanOrEqual(3);
    // Each section is about its title: most of its quotes hold a word of it.
    for (const s of sections) {
      const words = analyzeTerms(bare(s.title)).filter((w) => w !== 'immigr');
      const quotes = s.paragraphs.flatMap((p) => p.citations.map((c) => c.quote ?? ''));
      const holding = quotes.filter((q) => words.some((w) => analyzeTerms(q).includes(w))).length;
      expect(holding * 2, s.title).toBeGreaterThan(quotes.length);
    }
    // Periods follow time, and the lede names the themes in that order before the counts.
    const firstYears = sections.map((s) => Number(/^(\d{4})/.exec(s.title)![1]));
    const medians = sections.map((s) => {
      const ys = s.paragraphs.flatMap((p) => p.citations.map((c) => titleParts(title(c.sourceId)).year!)).sort((a, b) => a - b);
      return ys[Math.floor((ys.length - 1) / 2)]!;
    });
    expect(medians).toEqual([...medians].sort((a, b) => a - b));
    expect(firstYears.length).toBe(sections.length);
    // As whole words: "legal immigration" is not the end of "illegal immigration".
    const positions = sections.map((s) => report.summary.toLowerCase().search(new RegExp(`(?<![\\p{L}])${bare(s.title).toLowerCase()}(?![\\p{L}])`, 'u')));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // Each section opens with who, when and how many; the counts are those of what it cites.
    for (const s of sections) {
      const n = new Set(s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))).size;
      expect(s.paragraphs[0]!.text).toMatch(new RegExp(`^[A-Z][^:]*, \\d{4}(–\\d{4})?, in ${n} passages?:`));
    }
    const cited = new Set(sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId))));
    expect(report.summary).toContain(`The report cites ${cited.size} passages`);
  });
});
