import type { CorpusIndex } from '../index/corpus-index';
import { documentStructure } from '../index/documents';
import { extractPhrases, stemWord } from '@orrery/language';

/** A facet of a topic: a phrase or salient term that a group of on-topic passages share. */
export interface Facet {
  /** Stemmed key, e.g. "storm surg". */
  key: string;
  /** Readable label, the most frequent surface form, e.g. "storm surge". */
  label: string;
  /**
   * What a reader would call the facet: the phrase as the passages write it, with the topic's own words
   * when they belong to it ("illegal immigration", "Chinese immigration"); else the label.
   */
  title: string;
  /** Index terms of the key. */
  terms: string[];
  /** Passages (of the mined set) that contain the facet. */
  passageIds: string[];
  /** Relevance mass of those passages. */
  mass: number;
  /** mass x specificity: how much the facet is worth as a subtopic. */
  salience: number;
}

export interface FacetMiningOptions {
  /** Terms that define the topic itself; a facet made only of them is not a facet. */
  topicTerms: ReadonlySet<string>;
  /** A facet must occur in at least this many passages. */
  minSupport: number;
  /** ...and in at most this share of them (a term in every passage is the topic, not a facet). */
  maxShare: number;
  limit: number;
  /** Whether a facet's terms may make a subtopic at all (a survey over dated documents keeps the subject's company). */
  keep?: (terms: readonly string[]) => boolean;
}

/**
 * A facet must be this many times more frequent in the mined passages than in the corpus (checked when
 * the mined passages are a small sample of the corpus: a word every document uses is not a facet).
 */
export const MIN_LIFT = 1.5;

const phraseCache = new WeakMap<CorpusIndex, Map<string, { key: string; surface: string }[]>>();

/** Facet candidates of one passage: POS-tagged noun / proper-noun phrases and salient single terms. */
function candidatesOf(index: CorpusIndex, id: string): { key: string; surface: string }[] {
  let byId = phraseCache.get(index);
  if (!byId) phraseCache.set(index, (byId = new Map()));
  let out = byId.get(id);
  if (!out) {
    const text = index.passage(id)?.text ?? '';
    const seen = new Set<string>();
    out = [];
    for (const p of extractPhrases(text)) {
      if (seen.has(p.key)) continue;
      seen.add(p.key);
      out.push({ key: p.key, surface: p.surface });
      // A long noun compound also counts by its head pair ("record storm surge" -> "storm surge").
      if (p.kind === 'noun') {
        const words = p.key.split(' ');
        const surfaces = p.surface.split(' ');
        if (words.length > 2 && surfaces.length === words.length) {
          const key = words.slice(-2).join(' ');
          if (!seen.has(key)) {
            seen.add(key);
            out.push({ key, surface: surfaces.slice(-2).join(' ') });
          }
        }
      }
      // Each word of a proper name is also a candidate ("DeSantis" from "Ron DeSantis").
      if (p.kind === 'proper') {
        const words = p.key.split(' ');
        const surfaces = p.surface.split(' ');
        if (words.length > 1)
          words.forEach((w, i) => {
            if (!seen.has(w) && surfaces[i]) {
              seen.add(w);
              out!.push({ key: w, surface: surfaces[i]! });
            }
          });
      }
    }
    byId.set(id, out);
  }
  return out;
}

/**
 * Mine the facets of a set of scored passages: phrases and names that several of them share, minus
 * the topic's own terms, ranked by the relevance mass they gather times their specificity (IDF).
 */
export function mineFacets(index: CorpusIndex, passages: readonly { id: string; score: number }[], options: FacetMiningOptions): Facet[] {
  const acc = new Map<string, { ids: Set<string>; mass: number; surfaces: Map<string, number>; whole: Map<string, number> }>();
  const structure = documentStructure(index);
  for (const p of passages) {
    for (const c of candidatesOf(index, p.id)) {
      if (!meaningfulCandidate(index, c, structure.boilerplate)) continue;
      const terms = c.key.split(' ').filter((t) => !options.topicTerms.has(t));
      if (terms.length === 0) continue;
      const key = terms.join(' ');
      let a = acc.get(key);
      if (!a) acc.set(key, (a = { ids: new Set(), mass: 0, surfaces: new Map(), whole: new Map() }));
      if (!a.ids.has(p.id)) {
        a.ids.add(p.id);
        a.mass += p.score;
      }
      const whole = c.key.split(' ').length === terms.length;
      const surface = whole ? c.surface : surfaceWithout(c.surface, c.key, options.topicTerms);
      a.surfaces.set(surface, (a.surfaces.get(surface) ?? 0) + 1);
      if (!whole && c.surface.split(' ').length <= MAX_TITLE_WORDS) a.whole.set(c.surface, (a.whole.get(c.surface) ?? 0) + 1);
    }
  }
  const maxCount = Math.max(options.minSupport, Math.floor(options.maxShare * passages.length));
  const facets: Facet[] = [];
  const background = backgroundOf(index, passages.map((p) => p.id));
  const sampled = passages.length > 0 && background.size >= 3 * passages.length;
  for (const [key, a] of acc) {
    if (a.ids.size < options.minSupport || a.ids.size > maxCount) continue;
    const terms = key.split(' ');
    if (terms.some((t) => index.df(t) === 0) || (options.keep && !options.keep(terms))) continue;
    // A lone word in most of a sizeable set is the topic's setting ("American economy"), not one of its facets.
    if (terms.length === 1 && passages.length >= 10 && a.ids.size > 0.5 * passages.length) continue;
    if (sampled) {
      const df = Math.min(...terms.map((t) => background.df(t)));
      const lift = a.ids.size / passages.length / (df / background.size);
      if (lift < MIN_LIFT) continue;
    }
    const specificity = terms.reduce((s, t) => s + index.idf(t), 0) / terms.length;
    const surface = [...a.surfaces.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]![0];
    const label = terms.length === 1 ? fullName(index, surface, a.ids) : surface;
    facets.push({
      key,
      label,
      title: titleOf(label, a.whole, a.ids.size),
      terms,
      passageIds: [...a.ids].sort(),
      mass: a.mass,
      salience: a.mass * specificity * (terms.length > 1 ? 1.25 : 1),
    });
  }
  return mergeFacets(facets.sort((a, b) => b.salience - a.salience || a.key.localeCompare(b.key))).slice(0, options.limit);
}

/** A facet's title is at most this many words. */
const MAX_TITLE_WORDS = 4;

/**
 * The facet's phrase with the topic's words, when most of its passages write it that way ("illegal" is
 * "illegal immigration" in most of them); the label otherwise ("Canada", "steamship companies").
 */
function titleOf(label: string, whole: ReadonlyMap<string, number>, support: number): string {
  const counts = new Map<string, number>();
  for (const [surface, n] of whole) {
    const lower = surface.toLowerCase();
    counts.set(lower, (counts.get(lower) ?? 0) + n);
  }
  const top = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0];
  if (!top || top[1] < Math.max(2, 0.5 * support)) return label;
  // The most frequent casing of that phrase.
  const cased = [...whole.entries()].filter(([s]) => s.toLowerCase() === top[0]).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]![0];
  return cased.toLowerCase().includes(label.toLowerCase()) ? cased : label;
}

/**
 * What a facet's frequency is compared with: the whole corpus, or, when passages group into documents,
 * the documents the mined passages come from. A word their documents use everywhere ("America" in modern
 * speeches) is the documents' style, not a facet of the topic; "tax cuts" stands out within them.
 */
function backgroundOf(index: CorpusIndex, ids: readonly string[]): { size: number; df: (t: string) => number } {
  const structure = documentStructure(index);
  if (!structure.structured) return { size: index.size, df: (t) => index.df(t) };
  const docs = new Set(ids.map((id) => structure.docOf(id)).filter((d): d is string => d !== null));
  const members = new Set(ids);
  let size = 0;
  const counts = new Map<string, number>();
  for (const p of index.passages) {
    if (!members.has(p.id) && !docs.has(structure.docOf(p.id) ?? '')) continue;
    size++;
    for (const t of new Set(index.termsOf(p.id))) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return { size, df: (t) => Math.max(1, counts.get(t) ?? 0) };
}

/**
 * The full form of a one-word name when the passages nearly always write it after the same capitalized
 * word ("York" -> "New York", "Border" stays "Border" when its predecessors vary).
 */
function fullName(index: CorpusIndex, word: string, ids: Iterable<string>): string {
  if (!/^\p{Lu}/u.test(word)) return word;
  const re = new RegExp(`(?:(\\p{Lu}[\\p{L}.]*)\\s+)?${escape(word)}(?![\\p{L}])`, 'gu');
  const before = new Map<string, number>();
  let n = 0;
  for (const id of ids)
    for (const m of (index.passage(id)?.text ?? '').matchAll(re)) {
      n++;
      if (m[1]) before.set(m[1], (before.get(m[1]) ?? 0) + 1);
    }
  const top = [...before.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0];
  return top && n >= 2 && top[1] >= 0.7 * n && !/^(The|A|An|In|Of|And|Our|This|That|These|Those)$/.test(top[0]) ? `${top[0]} ${word}` : word;
}

/** Pronouns, contractions and one-letter words: a facet label made of them names nothing ("I'm", "i."). */
const CONTRACTION = /['’](m|re|ve|ll|d|s|t)$/i;
const ROMAN = /^[ivxlc]+$/i;
const PRONOUN = /^(i|me|my|we|us|our|you|your|he|him|his|she|her|they|them|their|it|its|this|that|these|those)$/i;

/**
 * Whether a candidate phrase can label a facet: no pronoun, contraction or stray letter; no address
 * formula or sign-off word (boilerplate of the corpus's documents); and a lone capitalized word must be
 * a name, not a common word capitalized at a sentence start ("Tonight", "Government").
 */
export function meaningfulCandidate(index: CorpusIndex, c: { key: string; surface: string }, boilerplate: ReadonlySet<string>): boolean {
  const words = c.surface.split(/\s+/).filter(Boolean);
  if (words.length === 0) return false;
  for (const w of words) {
    const bare = w.replace(/[.,;:!?]+$/, '');
    if (bare.length < 2 || CONTRACTION.test(bare) || PRONOUN.test(bare) || ROMAN.test(bare)) return false;
  }
  const keys = c.key.split(' ');
  if (keys.some((k) => boilerplate.has(k))) return false;
  if (keys.length === 1 && /^\p{Lu}/u.test(words[0]!) && !/^\p{Lu}+$/u.test(words[0]!)) return isName(index, words[0]!);
  return true;
}

const nameCache = new WeakMap<CorpusIndex, Map<string, boolean>>();

/**
 * A word is a name when the corpus writes it capitalized mid-sentence at least as often as in lower case,
 * and not mostly as a bracketed stage direction of a transcript ("(Laughter.)", "(Applause.)").
 */
export function isName(index: CorpusIndex, word: string): boolean {
  let byWord = nameCache.get(index);
  if (!byWord) nameCache.set(index, (byWord = new Map()));
  const lower = word.toLowerCase().replace(/['’]s$/, '');
  let out = byWord.get(lower);
  if (out === undefined) {
    const stem = stemWord(lower);
    const ids = index.searchTerms([stem], { limit: 200 }).map((r) => r.id);
    const re = new RegExp(`(^|[^\\p{L}])(${escape(lower)})(?![\\p{L}])`, 'giu');
    let lc = 0;
    let uc = 0;
    let bracketed = 0;
    for (const id of ids) {
      const text = index.passage(id)?.text ?? '';
      for (const m of text.matchAll(re)) {
        const at = m.index + m[1]!.length;
        const before = text.slice(Math.max(0, at - 3), at);
        if (/[([]\s*$/.test(before) && /^[.!]?\s*[)\]]/.test(text.slice(at + m[2]!.length, at + m[2]!.length + 3))) bracketed++;
        if (/[.!?:"“(]\s*$/.test(before) || at === 0) continue; // a sentence start says nothing
        if (/^\p{Ll}/u.test(m[2]!)) lc++;
        else uc++;
      }
    }
    out = uc >= lc && bracketed < 0.5 * (uc + lc);
    byWord.set(lower, out);
  }
  return out;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Merge facets that name the same thing: word forms of one stem family ("America" / "American",
 * "China" / "Chinese"), a name and its longer form ("York" / "New York"), or facets whose passages
 * nearly coincide. The more salient facet absorbs the other (a longer phrase lends its label).
 */
export function mergeFacets(sorted: Facet[]): Facet[] {
  const kept: Facet[] = [];
  for (const f of sorted) {
    const into = kept.findIndex((k) => sameFacet(k, f));
    if (into < 0) {
      kept.push({ ...f, passageIds: [...f.passageIds] });
      continue;
    }
    const k = kept[into]!;
    const ids = [...new Set([...k.passageIds, ...f.passageIds])].sort();
    const longer = f.terms.length > k.terms.length && k.terms.every((t) => f.terms.includes(t)) && f.passageIds.length >= 0.8 * k.passageIds.length;
    kept[into] = { ...(longer ? { ...k, key: f.key, label: f.label, title: f.title, terms: f.terms } : k), passageIds: ids, mass: Math.max(k.mass, f.mass) };
  }
  return kept;
}

function sameFacet(a: Facet, b: Facet): boolean {
  if (a.terms.length === 1 && b.terms.length === 1 && sameWordFamily(a.label, b.label)) return true;
  const small = a.passageIds.length <= b.passageIds.length ? a : b;
  const large = small === a ? b : a;
  const inLarge = new Set(large.passageIds);
  const shared = small.passageIds.filter((id) => inLarge.has(id)).length;
  const nested = small.terms.every((t) => large.terms.includes(t)) || large.terms.every((t) => small.terms.includes(t));
  if (nested && shared >= 0.6 * small.passageIds.length) return true;
  return small.passageIds.length >= 3 && shared >= 0.8 * small.passageIds.length && shared >= 0.5 * large.passageIds.length;
}

/** "America" / "American", "China" / "Chinese": a shared prefix of 4+ letters covering most of the shorter word. */
export function sameWordFamily(x: string, y: string): boolean {
  const a = x.toLowerCase();
  const b = y.toLowerCase();
  if (a === b) return true;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n >= 4 && n >= 0.6 * Math.min(a.length, b.length);
}

function surfaceWithout(surface: string, key: string, topicTerms: ReadonlySet<string>): string {
  const words = surface.split(' ');
  const keys = key.split(' ');
  if (words.length !== keys.length) return surface;
  return words.filter((_, i) => !topicTerms.has(keys[i]!)).join(' ');
}
