import { analyzeTerms } from '@orrery/language';
import type { CorpusIndex } from './corpus-index';
import { documentStructure } from './documents';
import { eraExpectation, eraOfPassage } from './era-expectation';
import { perSubject } from './per-subject';

/**
 * The words a subject keeps company with across the corpus: what its passages say far more often than the corpus
 * does ("immigration": border, illegal, restriction, Chinese, aliens, citizenship). These are the themes a reader
 * expects of "how was X talked about", found by counting, not by the few passages retrieval ranked first: each
 * word is weighed by how many of the subject's passages hold it times the log of how much likelier it is there
 * than anywhere (a pointwise mutual information weighted by its support).
 */
export interface CompanyWord {
  stem: string;
  /** Passages of the subject that hold it. */
  passages: number;
  /** How much likelier in the subject's passages than in passages of their own 20-year eras. */
  lift: number;
  /** sqrt(passages) x ln(lift): the ranking. */
  weight: number;
}

/** A word is company when the subject's passages hold it at least this much likelier than the corpus does... */
const MIN_LIFT = 2;
/** ...in at least this many of them... */
const MIN_PASSAGES = 3;
/** ...of a subject that at least this many passages hold. */
const MIN_SUBJECT_PASSAGES = 20;

/** Subjects whose company is kept per index. */
const cached = perSubject<CompanyWord[]>(64);

/** Subjects whose passages are kept per index: a few, since a subject of a large corpus can hold a great many. */
const passagesOf = perSubject<readonly { id: string; score: number; matched: string[] }[]>(8);

/**
 * The passages that hold a subject: every term, and a subject of several words as the phrase ("civil rights"). Read
 * once per subject: a survey asks for them by era, for the subject's company words and for its company phrases.
 */
export function subjectPassages(index: CorpusIndex, terms: readonly string[]): readonly { id: string; score: number; matched: string[] }[] {
  if (terms.length === 0) return [];
  const phrase = ` ${terms.join(' ')} `;
  return passagesOf(index, terms, () =>
    index
      .searchTerms(terms, { limit: index.size })
      .filter((h) => terms.every((t) => h.matched.includes(t)) && (terms.length === 1 || ` ${analyzeTerms(index.passage(h.id)!.text).join(' ')} `.includes(phrase))),
  );
}

/** The subject's company, best first; authors' names (every passage of a speech holds its speaker's) are left out. */
export function subjectCompany(index: CorpusIndex, terms: readonly string[]): CompanyWord[] {
  return cached(index, terms, () => company(index, terms));
}

function company(index: CorpusIndex, terms: readonly string[]): CompanyWord[] {
  const held = subjectPassages(index, terms);
  // A subject a few passages hold keeps company with whatever those few say.
  if (held.length < MIN_SUBJECT_PASSAGES) return [];
  const counts = new Map<string, number>();
  for (const h of held) for (const t of new Set(index.termsOf(h.id))) counts.set(t, (counts.get(t) ?? 0) + 1);
  const structure = documentStructure(index);
  const names = new Set(structure.authors.flatMap((a) => analyzeTerms(a)));
  const expected = expectedShare(index, held.map((h) => h.id));
  const out: CompanyWord[] = [];
  for (const [stem, n] of counts) {
    if (n < MIN_PASSAGES || terms.includes(stem) || names.has(stem) || /^[0-9]/.test(stem) || stem.length < 3) continue;
    const lift = n / held.length / Math.max(expected(stem), 1 / index.size);
    if (lift < MIN_LIFT) continue;
    out.push({ stem, passages: n, lift, weight: Math.sqrt(n) * Math.log(lift) });
  }
  out.sort((a, b) => b.weight - a.weight || a.stem.localeCompare(b.stem));
  return out;
}

/** Each company word's weight against the best one's, 0–1. */
export function companyWeights(index: CorpusIndex, terms: readonly string[]): Map<string, number> {
  const words = subjectCompany(index, terms);
  const top = words[0]?.weight || 1;
  return new Map(words.map((w) => [w.stem, w.weight / top]));
}

const eraDfCache = new WeakMap<CorpusIndex, Map<number, Map<string, number>>>();

/** Each era's document frequencies, by stem. */
function eraDf(index: CorpusIndex): Map<number, Map<string, number>> {
  let eras = eraDfCache.get(index);
  if (!eras) {
    eras = new Map();
    for (const id of index.ids()) {
      const era = eraOfPassage(index, id);
      if (era === null) continue;
      const df = eras.get(era) ?? new Map<string, number>();
      for (const t of new Set(index.termsOf(id))) df.set(t, (df.get(t) ?? 0) + 1);
      eras.set(era, df);
    }
    eraDfCache.set(index, eras);
  }
  return eras;
}

/** The share of `ids` a word would hold if it were no likelier there than in the corpus (`eraExpectation`). */
function expectedShare(index: CorpusIndex, ids: readonly string[]): (stem: string) => number {
  if (!documentStructure(index).dated) return (stem) => index.share(stem);
  const expected = eraExpectation(index, ids);
  const eras = eraDf(index);
  return (stem) => expected((era) => eras.get(era)?.get(stem) ?? 0, index.share(stem));
}
