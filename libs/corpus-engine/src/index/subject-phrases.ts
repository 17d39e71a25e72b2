import { analyzeTerms, titleCandidates } from '@orrery/language';
import type { CorpusIndex } from './corpus-index';
import { documentStructure, onePerDocumentFirst } from './documents';
import { eraExpectation, eraOfPassage } from './era-expectation';
import { perSubject } from './per-subject';
import { subjectPassages } from './subject-company';

/**
 * The phrases a subject keeps company with across the corpus: the nouns and noun phrases its passages say far
 * more often than the corpus does ("tariff": protective tariff, revenue, free list, reciprocity). A concordance,
 * not a ranking: every passage that holds the subject is read, so a theme is found wherever it is said, not only
 * in the passages retrieval ranked first. A phrase's support is the subject's passages that say it; its lift,
 * how much likelier its own words (those beyond the subject's) are in the subject's passages than in the corpus,
 * each passage set against its own era's (a subject talked about lately keeps company with every late word).
 */
export interface CompanyPhrase {
  /** Stems of the whole phrase, as a title candidate keys it ("protect tariff"). */
  key: string;
  /** Its stems beyond the subject's ("protect"). */
  own: string[];
  /** As the passages most often write it ("protective tariff"). */
  surface: string;
  /** The subject's passages that say it. */
  ids: string[];
  lift: number;
  /** sqrt(support) x ln(lift) x its form (`phraseForm`): the ranking. */
  weight: number;
}

/** A phrase of two words of its own ("Steamship companies") names a theme better than one word... */
const TWO_OWN_WORDS = 1.5;
/** ...and one word with the subject's ("Immigration quotas") only a little better than the word alone: the subject's word must not make "Peacetime economy" outrank "Inflation". */
const SUBJECT_AND_WORD = 1.2;
/** A one-word name ("Hungary") is a place or a person the quotes mention, seldom what they are about. */
const NAME_WEIGHT = 0.5;

/** How well a phrase's form names a theme: `own` words beyond the subject's, of `words` in all; `name`, one capitalized word. */
export const phraseForm = (own: number, words: number, name: boolean): number => (own > 1 ? TWO_OWN_WORDS : words > 1 ? SUBJECT_AND_WORD : 1) * (name ? NAME_WEIGHT : 1);

/** A phrase is company when its words are at least this much likelier in the subject's passages... */
const MIN_LIFT = 2;
/** ...and at least this many of them say it... */
const MIN_PASSAGES = 3;
/** ...of a subject that at least this many passages hold. */
const MIN_SUBJECT_PASSAGES = 20;
/** The subject's passages read at most, best first: the concordance of a subject a large corpus holds everywhere is sampled. */
const MAX_READ = 2_000;
/** Phrases whose lift is weighed, the most supported first. */
const MAX_WEIGHED = 200;
/** Subjects whose concordance is kept per index. */
const KEPT = 64;

const cached = perSubject<CompanyPhrase[]>(KEPT);

/** The subject's company phrases, best first; authors' names (every passage of a speech holds its speaker's) are left out. */
export function subjectPhrases(index: CorpusIndex, terms: readonly string[]): CompanyPhrase[] {
  return cached(index, terms, () => concordance(index, terms));
}

function concordance(index: CorpusIndex, terms: readonly string[]): CompanyPhrase[] {
  const held = subjectPassages(index, terms);
  if (held.length < MIN_SUBJECT_PASSAGES) return [];
  const read = held.slice(0, MAX_READ);
  const names = new Set(documentStructure(index).authors.flatMap((a) => analyzeTerms(a)));
  const said = new Map<string, { own: string[]; ids: string[]; surfaces: Map<string, number> }>();
  for (const h of read) {
    const seen = new Set<string>();
    for (const c of titleCandidates(index.passage(h.id)!.text)) {
      const stems = c.key.split(' ');
      const own = stems.filter((s) => !terms.includes(s));
      // "RESTRICTION Restriction" is a heading run into its sentence; a speaker's name is in every passage of a speech.
      if (own.length === 0 || new Set(stems).size < stems.length || own.some((s) => names.has(s) || /^[0-9]/.test(s))) continue;
      const e = said.get(c.key) ?? { own, ids: [], surfaces: new Map<string, number>() };
      e.surfaces.set(c.surface, (e.surfaces.get(c.surface) ?? 0) + 1);
      if (!seen.has(c.key)) e.ids.push(h.id);
      seen.add(c.key);
      said.set(c.key, e);
    }
  }
  const ids = new Set(read.map((h) => h.id));
  const expected = eraExpectation(index, read.map((h) => h.id));
  const holdAll = (own: readonly string[]): { inSubject: number; expected: number } => {
    // The passages that hold every word, read from the rarest word's passages.
    const [rarest, ...rest] = [...own].sort((a, b) => index.df(a) - index.df(b));
    const hits = index.searchTerms([rarest!], { limit: index.df(rarest!), filter: (id) => rest.every((s) => index.termsOf(id).includes(s)) });
    const perEra = new Map<number, number>();
    for (const h of hits) {
      const era = eraOfPassage(index, h.id);
      if (era !== null) perEra.set(era, (perEra.get(era) ?? 0) + 1);
    }
    return { inSubject: hits.filter((h) => ids.has(h.id)).length, expected: expected((era) => perEra.get(era) ?? 0, hits.length / index.size) };
  };
  const out: CompanyPhrase[] = [];
  const supported = [...said.entries()].filter(([, e]) => e.ids.length >= MIN_PASSAGES).sort((a, b) => b[1].ids.length - a[1].ids.length || a[0].localeCompare(b[0]));
  for (const [key, e] of supported.slice(0, MAX_WEIGHED)) {
    const { inSubject, expected: share } = holdAll(e.own);
    const lift = inSubject / read.length / Math.max(share, 1 / index.size);
    if (lift < MIN_LIFT) continue;
    const surface = [...e.surfaces.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const words = key.split(' ').length;
    const form = phraseForm(e.own.length, words, words === 1 && /^\p{Lu}/u.test(surface));
    out.push({ key, own: e.own, surface, ids: e.ids, lift, weight: Math.sqrt(e.ids.length) * Math.log(lift) * form });
  }
  out.sort((a, b) => b.weight - a.weight || a.key.localeCompare(b.key));
  return out;
}

/** Each company phrase's weight against the best one's, 0–1, by its key. */
export function phraseWeights(index: CorpusIndex, terms: readonly string[]): Map<string, number> {
  const phrases = subjectPhrases(index, terms);
  const top = phrases[0]?.weight || 1;
  return new Map(phrases.map((p) => [p.key, p.weight / top]));
}

/**
 * Passages for each of the subject's `phrases` best company phrases: the `perPhrase` best by BM25 on the subject
 * and the phrase's words among the passages that say it (one per document before a second of any), not
 * `skip`ped. The report's themes are these phrases' passages, so they are read whatever retrieval ranked first.
 * Relevance is BM25 relative to the phrase's best, each phrase's best passage weighing the same.
 */
export function surveyByCompany(index: CorpusIndex, terms: readonly string[], phrases: number, perPhrase: number, skip: (id: string) => boolean): { id: string; score: number; own: string[] }[] {
  const taken = new Set<string>();
  const out: { id: string; score: number; own: string[] }[] = [];
  for (const p of subjectPhrases(index, terms).slice(0, phrases)) {
    const says = new Set(p.ids);
    const hits = index.searchTerms([...terms, ...p.own], { limit: says.size, filter: (id) => says.has(id) && !taken.has(id) && !skip(id) });
    const best = hits[0]?.score || 1;
    for (const h of onePerDocumentFirst(index, hits).slice(0, perPhrase)) {
      taken.add(h.id);
      out.push({ id: h.id, score: h.score / best, own: p.own });
    }
  }
  return out;
}
