import type { CorpusIndex } from './corpus-index';
import { documentStructure, onePerDocumentFirst, spreadOverDocuments } from './documents';
import { subjectPassages } from './subject-company';

/** Evidence years within about this span of an already chosen one count as the same period. */
const EVIDENCE_ERA_SPAN = 10;

/**
 * The scouting evidence: the best `max` members; when the corpus's documents are dated and the members
 * are spread over many documents, chosen greedily so that each period the members reach is represented
 * (score x (1 - 0.5 x closeness to the years already chosen)). A topic's vocabulary drifts over time, so
 * the best-scoring members cluster in the period whose words the topic uses; the plan and the gap
 * analysis should see every period. Other corpora get the plain top `max`.
 */
export function spreadOverTime(index: CorpusIndex, sorted: [string, number][], max: number): [string, number][] {
  const structure = documentStructure(index);
  if (!structure.dated || sorted.length <= max || !spreadOverDocuments(structure, sorted.slice(0, max).map(([id]) => id))) return sorted.slice(0, max);
  const pool = [...sorted];
  const years: number[] = [];
  const out: [string, number][] = [];
  while (out.length < max && pool.length) {
    let best = 0;
    let bestScore = -Infinity;
    pool.forEach(([id, score], i) => {
      const y = structure.yearOf(id);
      let near = 0;
      if (y !== null) for (const x of years) near = Math.max(near, Math.exp(-Math.abs(x - y) / EVIDENCE_ERA_SPAN));
      const s = score * (1 - 0.5 * near);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    });
    const [pick] = pool.splice(best, 1);
    out.push(pick!);
    const y = structure.yearOf(pick![0]);
    if (y !== null) years.push(y);
  }
  return out.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Years in one era of a dated corpus. */
export const ERA_YEARS = 20;

/** The era a year falls in (1840-1859 is one era). */
export const eraOf = (year: number): number => Math.floor(year / ERA_YEARS);
/** An era counts when at least this many of its passages match the topic. */
const ERA_MIN_MATCHES = 3;

/**
 * Passages to add so that every era of a dated corpus that discusses the topic is represented: a
 * topic's company of words drifts over two centuries ("economy" beside "revenue" and "tariff" in 1840,
 * beside "jobs" and "growth" in 2000), so the members found from the best-matching seeds cluster in one
 * period. Per era (ERA_YEARS), the passages matching most of the topic's IDF mass, best BM25 first,
 * fill the era up to `perEra` members; their relevance is half their BM25 relative to the era's best.
 */
export function eraPassages(index: CorpusIndex, terms: string[], members: ReadonlySet<string>, share: (matched: string[]) => number, perEra: number): { id: string; score: number }[] {
  const structure = documentStructure(index);
  if (!structure.dated || terms.length === 0) return [];
  const byEra = new Map<number, { id: string; score: number }[]>();
  for (const hit of index.searchTerms(terms, { limit: index.size })) {
    const year = structure.yearOf(hit.id);
    if (year === null || share(hit.matched) < 0.999) continue;
    const era = eraOf(year);
    let list = byEra.get(era);
    if (!list) byEra.set(era, (list = []));
    list.push(hit);
  }
  const out: { id: string; score: number }[] = [];
  for (const hits of byEra.values()) {
    if (hits.length < ERA_MIN_MATCHES) continue;
    const best = hits[0]!.score || 1;
    const missing = perEra - hits.filter((h) => members.has(h.id)).length;
    for (const h of hits.filter((x) => !members.has(x.id)).slice(0, Math.max(0, missing))) out.push({ id: h.id, score: 0.5 * (h.score / best) });
  }
  return out;
}

/** An era of a dated corpus, as the years it spans. */
export interface Era {
  start: number;
  end: number;
}

/**
 * Eras whose scouting evidence the ledger misses entirely (at least `minMissing` passages of it), oldest
 * first: a research round that searched by facet words found the topic in some periods and not in
 * others, and a facet mined from the missing passages rarely names what they share, which is their time.
 * Empty for an undated corpus.
 */
export function missingEras(index: CorpusIndex, evidence: readonly { id: string }[], ledger: ReadonlySet<string>, minMissing: number): Era[] {
  const structure = documentStructure(index);
  if (!structure.dated) return [];
  const eraOfPassage = (id: string): number | null => {
    const y = structure.yearOf(id);
    return y === null ? null : eraOf(y);
  };
  const reached = new Set([...ledger].map(eraOfPassage));
  const missing = new Map<number, number>();
  for (const e of evidence) {
    const era = eraOfPassage(e.id);
    if (era !== null && !ledger.has(e.id) && !reached.has(era)) missing.set(era, (missing.get(era) ?? 0) + 1);
  }
  return [...missing.entries()]
    .filter(([, n]) => n >= minMissing)
    .map(([era]) => era)
    .sort((a, b) => a - b)
    .map((era) => ({ start: era * ERA_YEARS, end: era * ERA_YEARS + ERA_YEARS - 1 }));
}

/**
 * A survey of a subject over a dated corpus: in each era (ERA_YEARS) where at least `minMatches` passages hold
 * the subject (every term, a phrase of several in order), its `perEra` best by BM25 (one per document before a
 * second of any), not `skip`ped. A question about how something was talked about over two centuries is answered
 * from every period that talks about it, not from the few where its words are densest; one speaker's period is read
 * however few passages say it (`minMatches` 1). Relevance is BM25 relative to the era's best, so each period's
 * best passage weighs the same. Empty for an undated corpus.
 */
export function surveyByEra(index: CorpusIndex, terms: readonly string[], perEra: number, skip: (id: string) => boolean, minMatches = ERA_MIN_MATCHES): { id: string; score: number }[] {
  const structure = documentStructure(index);
  if (!structure.dated || terms.length === 0) return [];
  const byEra = new Map<number, { id: string; score: number }[]>();
  for (const hit of subjectPassages(index, terms)) {
    const year = structure.yearOf(hit.id);
    if (year === null) continue;
    const era = eraOf(year);
    let list = byEra.get(era);
    if (!list) byEra.set(era, (list = []));
    list.push(hit);
  }
  const out: { id: string; score: number }[] = [];
  for (const era of [...byEra.keys()].sort((a, b) => a - b)) {
    const hits = byEra.get(era)!;
    if (hits.length < minMatches) continue;
    const best = hits[0]!.score || 1;
    for (const h of onePerDocumentFirst(index, hits.filter((h) => !skip(h.id))).slice(0, perEra)) out.push({ id: h.id, score: h.score / best });
  }
  return out;
}
