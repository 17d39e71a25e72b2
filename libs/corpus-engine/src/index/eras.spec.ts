import type { Finding, SynthesizeTask } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { CorpusIndex } from './corpus-index';
import { eraPassages, missingEras, surveyByEra } from './eras';
import { DEFAULT_REFINEMENT, eraSubtopic, refinePlan } from '../plan/refinement';
import { overviewSubtopic } from '../plan/subtopic-builder';
import { TopicProfile } from '../profile/topic-profile';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import { extractiveReport } from '../write/extractive-synthesis';
import { analyzeTerms } from '@orrery/language';

/**
 * Dated "speeches" from 1800 to 2000, one every 20 years, five paragraphs each. The economy is discussed
 * in every era but 1900 (one mention only), with 1800s words (revenue, tariff) and 2000s words (jobs, growth).
 */
function speeches(): CorpusIndex {
  const passages = [];
  for (let year = 1800; year <= 2000; year += 20) {
    const title = `${year}, President of ${year}`;
    const old = year < 1900;
    const economy = old ? 'the economy of the revenue, the tariff and the public debt' : 'the economy, jobs, growth and the middle class';
    for (let k = 1; k <= 5; k++) {
      const mentions = year === 1900 ? k === 1 : k <= 3;
      passages.push({ id: `y${year}-p${k}`, title, text: mentions ? `In ${year} we weighed ${economy}, paragraph ${k}.` : `The navy, the post roads and the lighthouses of ${year}, paragraph ${k}.` });
    }
  }
  return new CorpusIndex(passages);
}

describe('eraPassages', () => {
  const index = speeches();
  const terms = analyzeTerms('economy');
  const all = () => 1;

  it('fills every era that discusses the topic up to perEra members, from its best-matching passages', () => {
    const modern = new Set(['y1980-p1', 'y1980-p2', 'y2000-p1', 'y2000-p2', 'y2000-p3']);
    const added = eraPassages(index, terms, modern, all, 2);
    const eras = new Set(added.map((a) => Math.floor(Number(a.id.slice(1, 5)) / 20)));
    // 1800..1880 and 1920..1960 get two each; 1980 needs none more (two members), 2000 none (three); 1900 has one mention only.
    expect([...eras].sort()).toEqual([90, 91, 92, 93, 94, 96, 97, 98]);
    expect(added).toHaveLength(16);
    expect(added.every((a) => !modern.has(a.id) && a.score > 0 && a.score <= 0.5)).toBe(true);
    expect(added.some((a) => a.id.startsWith('y1900'))).toBe(false);
  });

  it('adds nothing when switched off or when the corpus has no dates', () => {
    expect(eraPassages(index, terms, new Set(), all, 0)).toEqual([]);
    const undated = new CorpusIndex(Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, title: `p${i}`, text: `The economy and its growth, part ${i}.` })));
    expect(eraPassages(undated, terms, new Set(), all, 3)).toEqual([]);
  });
});

describe('extractiveReport over dated sources', () => {
  it('spreads a small citation budget over eras before citing a second document of one era', () => {
    const docs: [string, string][] = [
      ['d2000a', '2000, President A'],
      ['d2000b', '2000, President A'],
      ['d2004', '2004, President B'],
      ['d2008', '2008, President C'],
      ['d1820', '1820, President E'],
      ['d1840', '1840, President F'],
    ];
    const text = (id: string) => `Passage ${id} on the economy.`;
    const sources = docs.map(([id, title]) => ({ id, kind: 'passage' as const, title, text: text(id) }));
    // Relevance favours the modern passages, as a topic's modern vocabulary does.
    const findings: Finding[] = docs.map(([id], i) => ({ id: `${id}~f`, claim: 'c', sourceId: id, quote: text(id), subtopicId: 's1', relevance: { score: 1 - i * 0.08, topicTerms: [], facetTerms: [] } }));
    const report = (topic: string) =>
      extractiveReport({
        kind: 'synthesize',
        taskId: 'r.syn',
        runId: 'r',
        round: 1,
        engine: 'corpus',
        context: { objective: 'report', topic, scope: { include: [], exclude: [] }, outputFormat: 'report', sourceGuidance: 'corpus', excerpts: [] },
        sections: [{ subtopicId: 's1', title: 'Economy', findings }],
        sources,
        maxCitations: 3,
      } as unknown as SynthesizeTask, { vocabulary: GENERIC_VOCABULARY, isName: () => false }).sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations.map((c) => c.sourceId)));
    // Three documents of one era (2000-2019) would be the three most relevant; the budget goes to three eras.
    expect(report('How have presidents addressed the economy?').sort()).toEqual(['d1820', 'd1840', 'd2000a']);
    // A "first" question keeps its date order instead.
    expect(report('When did a president first mention the economy?')).toEqual(['d1820', 'd1840', 'd2000a']);
  });
});

describe('missingEras', () => {
  const index = speeches();
  const evidence = ['y1800-p1', 'y1800-p2', 'y1820-p1', 'y1840-p1', 'y1840-p2', 'y1980-p1', 'y2000-p1'].map((id) => ({ id }));

  it('names the eras whose evidence the ledger misses entirely, oldest first', () => {
    // 1800-1819 (two passages) and 1840-1859 (two) are missed; 1820 has one only; 1980 and 2000 were reached.
    expect(missingEras(index, evidence, new Set(['y1980-p2', 'y2000-p1']), 2)).toEqual([
      { start: 1800, end: 1819 },
      { start: 1840, end: 1859 },
    ]);
    // An era the ledger reached with any passage is not missing, even if its evidence is.
    expect(missingEras(index, evidence, new Set(['y1800-p3', 'y1840-p3', 'y1980-p1']), 2)).toEqual([]);
  });

  it('finds nothing in an undated corpus', () => {
    const undated = new CorpusIndex(Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, title: `p${i}`, text: `The economy, part ${i}.` })));
    expect(missingEras(undated, [{ id: 'p1' }, { id: 'p2' }], new Set(), 1)).toEqual([]);
  });

  it('scopes an era subtopic by its years, which its documents\' dated titles carry', () => {
    const s = eraSubtopic('How have presidents addressed the economy?', { start: 1840, end: 1859 }, 'r2-');
    expect(s).toMatchObject({ id: 'r2-era-1840', title: '1840–1859', origin: 'refinement' });
    expect(s.facetTerms).toHaveLength(20);
    expect(s.facetTerms[0]).toBe('1840');
    // Ranked for that subtopic, the era's passages about the topic come first.
    const profileTerms = analyzeTerms('economy');
    const hits = index.searchTerms([...profileTerms, ...s.facetTerms], { limit: 3 });
    expect(hits.map((h) => h.id.slice(0, 5))).toEqual(['y1840', 'y1840', 'y1840']);
  });
});

describe('refinePlan over a dated corpus', () => {
  it('sends a task to each era whose evidence the ledger missed', () => {
    const index = speeches();
    const profile = new TopicProfile(index, 'How have presidents addressed the economy?');
    const eras = new Set(profile.evidence.map((e) => Number(e.id.slice(1, 5))));
    expect(eras.has(1800) && eras.has(2000)).toBe(true);
    // The first round found only the modern speeches' words.
    const modern = profile.evidence.filter((e) => Number(e.id.slice(1, 5)) >= 1960).map((e) => e.id);
    const findings = modern.map((sourceId) => ({ id: `${sourceId}~f`, claim: 'c', sourceId, quote: 'q', subtopicId: 'overview' }));
    const plan = { classification: 'breadth' as const, subtopics: [overviewSubtopic('How have presidents addressed the economy?')] };
    const r = refinePlan(index, profile, { runId: 'r', topic: 'How have presidents addressed the economy?', plan, round: 1, findings, evidence: { overview: findings.length }, maxNewTasks: 4 }, DEFAULT_REFINEMENT);
    const eraIds = r.newSubtopics.filter((s) => s.id.startsWith('r2-era-')).map((s) => s.id);
    expect(eraIds.length).toBeGreaterThan(0);
    expect(eraIds[0]).toBe('r2-era-1800');
  });
});

describe('surveyByEra', () => {
  const index = speeches();

  it("takes each era's best passages on the subject, one document before a second, every era that discusses it", () => {
    const picked = surveyByEra(index, analyzeTerms('economy'), 2, () => false);
    const years = picked.map((p) => Number(p.id.slice(1, 5)));
    // Every era but 1900 (one mention only): two passages each, eras in order, each a separate speech's passage.
    expect([...new Set(years)]).toEqual([1800, 1820, 1840, 1860, 1880, 1920, 1940, 1960, 1980, 2000]);
    expect(picked).toHaveLength(20);
    expect(picked.every((p) => p.score > 0 && p.score <= 1)).toBe(true);
  });

  it('skips passages already found, and reads a subject of several words as a phrase', () => {
    expect(surveyByEra(index, analyzeTerms('economy'), 3, (id) => id === 'y1800-p1').some((p) => p.id === 'y1800-p1')).toBe(false);
    const passages = [];
    for (let year = 1900; year <= 2000; year += 5)
      passages.push(
        { id: `r${year}`, title: `${year}, President of ${year}`, text: `Civil rights for every citizen were debated in ${year}.` },
        { id: `s${year}`, title: `${year}, President of ${year}`, text: `The civil service was reformed in ${year}, and the rights of veterans kept.` },
        { id: `n${year}`, title: `${year}, President of ${year}`, text: `The navy and the post roads of ${year}.` },
      );
    const phrase = surveyByEra(new CorpusIndex(passages), analyzeTerms('civil rights'), 5, () => false);
    expect(phrase.length).toBeGreaterThan(0);
    expect(phrase.every((p) => p.id.startsWith('r'))).toBe(true);
  });

  it('returns nothing for an undated corpus', () => {
    const undated = new CorpusIndex(Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, title: `p${i}`, text: `The economy and its growth, part ${i}.` })));
    expect(surveyByEra(undated, analyzeTerms('economy'), 3, () => false)).toEqual([]);
  });
});
