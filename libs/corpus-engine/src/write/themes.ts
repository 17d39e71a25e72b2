import { analyzeTerms, titleCandidates } from '@orrery/language';
import { phraseForm } from '../index/subject-phrases';
import { heldPhrase } from './section-titles';

/**
 * The themes of a report's evidence: each a noun phrase its quotes share that the rest of the evidence does
 * not, and the quotes that hold it. Phrases are weighed like TF-IDF over the evidence (held by several quotes,
 * not by most of them) and by how specific their words are in the corpus; a two-word phrase beats one word.
 * Chosen greedily, each taking the quotes not yet taken that hold every word of it beyond the question's
 * subject; a quote no theme holds is left out rather than filed under one.
 */

export interface ThemeQuote {
  quote: string;
  terms: ReadonlySet<string>;
  relevance: number;
}

export interface Theme<Q extends ThemeQuote> {
  /** As written in a quote, first letter capitalized ("Steamship companies"). */
  title: string;
  /** The title's stems beyond the subject's: what every member holds. */
  key: string[];
  quotes: Q[];
}

export interface ThemeOptions<Q extends ThemeQuote = ThemeQuote> {
  /** Stems of the question's subject: every quote holds them, so they name no theme alone. */
  subject: ReadonlySet<string>;
  /** How specific a key's words are in the corpus, 0–1. */
  specificity?: (key: string) => number;
  /**
   * The subject's company across the corpus (`subjectPhrases`), each phrase's weight 0–1 by its stems: when given, a
   * theme is named for what the subject keeps company with everywhere, not for what is rare in the evidence at hand.
   * A phrase that is not company weighs as its best word that is.
   */
  company?: ReadonlyMap<string, number>;
  /** Themes at most. */
  max?: number;
  /** Quotes a theme holds at least. */
  minQuotes?: number;
  /** Dated evidence: a quote's year, and the years one theme spans at most (a theme is something said in one period). */
  yearOf?: (q: Q) => number;
  window?: number;
}

/** A theme holds at least this many quotes: one quote's phrase names nothing. */
export const THEME_MIN_QUOTES = 2;
/** Themes in one report at most. */
export const MAX_THEMES = 8;
/** Years one theme of dated evidence spans at most. */
export const THEME_YEARS = 30;
/** A phrase none of whose words keeps the subject company weighs this much: it names a theme only where nothing better does. */
const OUTSIDE_COMPANY = 0.02;
/** A theme shows a few quotes; members beyond this many make it no more a theme (a broad word held by many passages is not the better theme). */
const MEMBERS_WEIGHED = 6;
/** A phrase held by more than this share of the evidence is the subject, not one theme of it. */
const TOO_COMMON = 0.5;

interface Candidate {
  surface: Map<string, number>;
  stems: string[];
  words: number;
  name: boolean;
}

export function themesOf<Q extends ThemeQuote>(quotes: readonly Q[], opts: ThemeOptions<Q>): Theme<Q>[] {
  const max = opts.max ?? MAX_THEMES;
  const min = opts.minQuotes ?? THEME_MIN_QUOTES;
  const specificity = opts.specificity ?? (() => 1);
  const candidates = new Map<string, Candidate>();
  for (const q of quotes)
    for (const c of titleCandidates(q.quote)) {
      const stems = c.key.split(' ');
      const own = stems.filter((s) => !opts.subject.has(s));
      // "RESTRICTION Restriction": a heading run into its sentence, not a phrase.
      if (own.length === 0 || new Set(stems).size < stems.length) continue;
      const e = candidates.get(c.key) ?? { surface: new Map<string, number>(), stems: own, words: stems.length, name: stems.length === 1 && /^\p{Lu}/u.test(c.surface) };
      e.surface.set(c.surface, (e.surface.get(c.surface) ?? 0) + 1);
      candidates.set(c.key, e);
    }
  const holds = (q: Q, stems: readonly string[]): boolean => stems.every((s) => q.terms.has(s));
  const left = new Set(quotes);
  const usedStems = new Set<string>();
  const themes: Theme<Q>[] = [];
  // Dated evidence: a theme of a period no theme yet holds weighs up to twice one of a period already named.
  const medianOf = (qs: readonly Q[]): number => opts.yearOf!([...qs].sort((a, b) => opts.yearOf!(a) - opts.yearOf!(b))[Math.floor((qs.length - 1) / 2)]!);
  const apart = (members: readonly Q[]): number => {
    if (!opts.yearOf || themes.length === 0) return 1;
    const m = medianOf(members);
    return 1 - 0.5 * Math.max(...themes.map((t) => Math.exp(-Math.abs(medianOf(t.quotes) - m) / THEME_YEARS)));
  };
  while (themes.length < max) {
    let best: { key: string; score: number; members: Q[] } | null = null;
    for (const [key, c] of candidates) {
      // A theme names something new: no word of it is a word of a title already chosen.
      if (c.stems.some((s) => usedStems.has(s))) continue;
      const everywhere = quotes.filter((q) => holds(q, c.stems)).length;
      if (everywhere > TOO_COMMON * quotes.length) continue;
      const members = inWindow([...left].filter((q) => holds(q, c.stems)), opts.yearOf, opts.window ?? THEME_YEARS);
      if (members.length < min) continue;
      const relevance = members.reduce((a, q) => a + q.relevance, 0) / members.length;
      const form = phraseForm(c.stems.length, c.words, c.name) * (0.5 + relevance);
      const score = opts.company
        ? ((opts.company.get(key) ?? Math.max(...c.stems.map((s) => opts.company!.get(s) ?? 0))) + OUTSIDE_COMPANY) * Math.sqrt(Math.min(members.length, MEMBERS_WEIGHED) * specificity(c.stems.join(' '))) * form * apart(members)
        : members.length * Math.log(1 + quotes.length / everywhere) * Math.sqrt(specificity(c.stems.join(' '))) * form;
      if (!best || score > best.score || (score === best.score && key < best.key)) best = { key, score, members };
    }
    if (!best) break;
    const c = candidates.get(best.key)!;
    // Named as its quotes most often say it, in either order ("immigration laws", not the one "lawful immigration").
    const said = new Map<string, number>();
    for (const o of candidates.values())
      if (o.words === c.words && o.stems.length === c.stems.length && o.stems.every((s) => c.stems.includes(s))) for (const [written, n] of o.surface) said.set(written, (said.get(written) ?? 0) + n);
    const surface = [...said.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    // One word of its own ("Parks") is named by the phrase most of its quotes say it in ("National parks").
    const wider = c.stems.length === 1 ? heldPhrase(c.stems, best.members) : null;
    themes.push({ title: capitalize(extended(wider && wider.split(' ').length > surface.split(' ').length ? wider : surface, best.members)), key: c.stems, quotes: best.members });
    for (const s of c.stems) usedStems.add(s);
    for (const q of best.members) left.delete(q);
  }
  return themes;
}

/**
 * A phrase that is the start of a longer one in most of its quotes, extended by the noun that follows it there
 * ("Yellowstone National" → "Yellowstone National Park", "Federal health" → "Federal health programs").
 */
export function extended(surface: string, quotes: readonly ThemeQuote[]): string {
  const last = surface.split(' ').pop()!;
  const after = new RegExp(`(?:^|[^\\p{L}])${surface.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(\\p{L}+)`, 'iu');
  const next = new Map<string, number>();
  for (const q of quotes) {
    const w = after.exec(q.quote)?.[1];
    if (w && titleCandidates(q.quote).some((c) => c.surface === `${last} ${w}`)) next.set(w, (next.get(w) ?? 0) + 1);
  }
  const top = [...next.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  return top && top[1] * 2 > quotes.length ? `${surface} ${top[0]}` : surface;
}

/** Undated, every quote; dated, those of the `years`-long window that holds most of them (the earliest such). */
function inWindow<Q>(quotes: Q[], yearOf: ((q: Q) => number) | undefined, years: number): Q[] {
  if (!yearOf || quotes.length === 0) return quotes;
  const sorted = [...quotes].sort((a, b) => yearOf(a) - yearOf(b));
  let best: Q[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const inside = sorted.filter((q, j) => j >= i && yearOf(q) - yearOf(sorted[i]!) < years);
    if (inside.length > best.length) best = inside;
  }
  return best;
}

/** The stems of a question's subject ("immigration" → "immigr"). */
export const subjectStems = (subject: string): Set<string> => new Set(analyzeTerms(subject));

/** A heading's capitals ("IMMIGRATION Restriction") are not a name: a word of five or more capitals is lowercased. */
const capitalize = (title: string): string => {
  const s = title.replace(/\b\p{Lu}{5,}\b/gu, (w) => w.toLowerCase());
  return /^\p{Ll}+\p{Lu}/u.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1);
};
