import type { Citation, Finding, ReportParagraph, ReportSection } from '@orrery/protocol';
import type { Retrieval } from '../search/answer-confidence';
import type { ReportShape } from '@orrery/language';
import { centralQuotes } from './central-findings';
import type { ComparisonSide } from '../plan/comparison-sides';
import { cosine } from '../index/corpus-index';
import type { CorpusVocabulary } from '@orrery/passages';
import { titleParts } from '../index/documents';
import { ERA_YEARS } from '../index/eras';
import { citedFigures, concentrationSentence, countSentence } from './report-figures';
import { groundedTitle } from './section-titles';
import { OVERVIEW_ID } from '../plan/subtopic-builder';
import { analyzeTerms } from '@orrery/language';

/** What the writer chose to cite, per section, before it is put into words. */
export interface ChosenSection {
  subtopicId: string;
  title: string;
  findings: Finding[];
}

export interface ReportProse {
  summary: string;
  summaryCitations: Citation[];
  sections: ReportSection[];
}

/** The lede says where the evidence is densest when one period holds at least this share of it. */
export const DENSE_SHARE = 0.25;
/** Central findings the lede quotes. */
const LEDE_FINDINGS = 3;
/** A change over time is told in at most this many periods. */
const MAX_PERIODS = 5;

/** Quotes in one paragraph at most. */
const PER_PARAGRAPH = 3;
/** Two quotes whose words overlap this much (Jaccard of their terms) say the same thing: one is shown. */
export const NEAR_DUPLICATE = 0.7;
/** Undated quotes share a paragraph when their term vectors are at least this similar. */
const SAME_ARGUMENT = 0.12;

export interface Quote {
  quote: string;
  citations: Citation[];
  /** Year and author of each citation's source (dated corpora), in citation order. */
  dates: { year: number | null; author: string | null }[];
  relevance: number;
  terms: Set<string>;
}

/**
 * The chosen quotes put into a research brief: near-duplicate quotes shown once (every source still
 * cited), each quote introduced by its speaker and year when the sources are dated ("In 1905, Theodore
 * Roosevelt said: …"), quotes in time order and sections by their median year after the overview, a
 * paragraph per period (or, undated, per cluster of similar quotes), and a lede built from the figures of
 * what is cited: how many passages, documents and authors, over which years, on which themes.
 * Changes no citation: the sources the writer chose are exactly the sources cited.
 */
export interface ProseContext {
  vocabulary: CorpusVocabulary;
  /** The shape the question asks for (a survey when absent). */
  shape?: ReportShape;
  /** The sides of a comparison, resolved on the corpus. */
  sides?: ComparisonSide[] | null;
  /** How well retrieval finds the question's subject (`answerConfidence`), and the subject's words the corpus never uses. */
  retrieval?: Retrieval;
  /** A term's IDF over the corpus: how specific a word is (a title or an aspect wants specific words). */
  idf?: (term: string) => number;
  /** Sides of a comparison the corpus never names: the report says so before what it holds of the others. */
  unknownSides?: string[];
  /** The words a subject keeps company with across the corpus, each weighed 0–1 against the best (`subjectCompany`). */
  company?: (subject: readonly string[]) => ReadonlyMap<string, number>;
  /** The phrases a subject keeps company with across the corpus, by their stems, each weighed 0–1 against the best (`subjectPhrases`). */
  companyPhrases?: (subject: readonly string[]) => ReadonlyMap<string, number>;
  /** Whether a capitalized word is a name (kept capitalized inside a sentence) rather than a common word. */
  isName: (word: string) => boolean;
  /** Whether a sentence says the subject in the sense asked, where its stem has another ("the trusts", not "I trust"; `subjectForms`). */
  saysSubject?: (text: string) => boolean;
  /** The authors the question names as speaking: a report with nothing of theirs says whose words it lacks. */
  speakers?: string[];
}

export function writeReport(topic: string, chosen: readonly ChosenSection[], sourceTitles: ReadonlyMap<string, string>, ctx: ProseContext): ReportProse {
  const { shown, dated, yearOf } = quotesOf(chosen, sourceTitles);
  if (dated) for (const s of shown) s.quotes.sort((a, b) => yearOf(a) - yearOf(b));
  if (dated && ctx.shape?.kind === 'change') return changeReport(shown.flatMap((s) => s.quotes), sourceTitles, ctx, yearOf);
  const ordered = dated ? inTimeOrder(shown, yearOf) : shown;
  const used = new Set<string>();
  const sections: ReportSection[] = ordered.map(({ section, quotes }, i) => {
    const own = quotes.map((q) => q.quote);
    const others = ordered.filter((_, j) => j !== i).map((o) => o.quotes.map((q) => q.quote));
    const title = section.subtopicId === OVERVIEW_ID ? 'Overview' : groundedTitle(own, others, section.title, used, specificityOf(ctx));
    used.add(analyzeTerms(title).join(' '));
    return { title, subtopicId: section.subtopicId, paragraphs: paragraphsOf(quotes, dated, yearOf).map((group) => paragraph(group, dated)) };
  });
  return { ...lede(ordered.flatMap((s) => s.quotes), sourceTitles, dated, ctx), sections };
}

/** The chosen findings as quotes: near-duplicates shown once with every source still cited. */
export function quotesOf(
  chosen: readonly ChosenSection[],
  sourceTitles: ReadonlyMap<string, string>,
): { shown: { section: ChosenSection; quotes: Quote[] }[]; dated: boolean; yearOf: (q: Quote) => number } {
  const meta = (id: string) => titleParts(sourceTitles.get(id));
  const all = chosen.flatMap((s) => s.findings);
  const dated = all.length > 0 && all.every((f) => meta(f.sourceId).year !== null);
  const shown: { section: ChosenSection; quotes: Quote[] }[] = [];
  const everyQuote: Quote[] = [];
  for (const section of chosen) {
    const quotes: Quote[] = [];
    for (const f of section.findings) {
      const citation = { sourceId: f.sourceId, quote: f.quote };
      const terms = new Set(analyzeTerms(f.quote));
      const twin = everyQuote.find((q) => q.quote === f.quote.trim() || jaccard(q.terms, terms) >= NEAR_DUPLICATE);
      if (twin) {
        if (!twin.citations.some((c) => c.sourceId === f.sourceId)) {
          twin.citations.push(citation);
          twin.dates.push(meta(f.sourceId));
        }
        continue;
      }
      const q: Quote = { quote: f.quote.trim(), citations: [citation], dates: [meta(f.sourceId)], relevance: f.relevance?.score ?? 0, terms };
      quotes.push(q);
      everyQuote.push(q);
    }
    if (quotes.length) shown.push({ section, quotes });
  }
  return { shown, dated, yearOf: (q: Quote): number => q.dates[0]!.year ?? 0 };
}

/**
 * The lede: the 2–4 most central findings, each quoted and cited, then the counts of what the report cites
 * (one function computes them from the cited sources) and, dated, where the evidence concentrates.
 */
function lede(quotes: readonly Quote[], sourceTitles: ReadonlyMap<string, string>, dated: boolean, ctx: ProseContext): { summary: string; summaryCitations: Citation[] } {
  if (quotes.length === 0) {
    const subject = ctx.shape?.subject;
    // "What did Washington say about foreign alliances?": the speaker never does, which is the answer.
    if (ctx.speakers?.length && subject) return { summary: `The corpus holds no passage in which ${listAnd(ctx.speakers)} ${ctx.speakers.length === 1 ? 'speaks' : 'speak'} of ${subject}.`, summaryCitations: [] };
    return { summary: 'No on-topic evidence was found in the corpus.', summaryCitations: [] };
  }
  const central = centralQuotes(quotes, LEDE_FINDINGS);
  const findings = central.map((q) => (dated ? said(q) : `“${q.quote}”`));
  const figures = citedFigures(
    quotes.flatMap((q) => q.citations.map((c) => c.sourceId)),
    (id) => sourceTitles.get(id),
  );
  const opening = dated ? findings.join(' ') : `The passages say: ${findings.join(' ')}`;
  const sentences = [opening, countSentence(figures, ctx.vocabulary), dated ? concentrationSentence(figures, DENSE_SHARE) : ''].filter(Boolean);
  return { summary: sentences.join(' '), summaryCitations: central.map((q) => q.citations[0]!) };
}

/** How specific a key's words are in the corpus, 0–1 (the least specific word; 1 without corpus statistics). */
export function specificityOf(ctx: ProseContext): (key: string) => number {
  const idf = ctx.idf;
  if (!idf) return () => 1;
  const cache = new Map<string, number>();
  return (key) => {
    let v = cache.get(key);
    if (v === undefined) {
      // ln(1 + N/df) for a word in one passage in ten thousand is about 9.2: the scale of "specific".
      v = Math.min(1, ...key.split(' ').map((t) => idf(t) / 9.2));
      cache.set(key, v);
    }
    return v;
  };
}

/** "In 1905, Theodore Roosevelt said: “…”"; an undated quote by where it is, when `sourceOf` says. */
export function said(q: Quote, sourceOf?: (q: Quote) => string): string {
  const d = q.dates[0]!;
  return d.author ? `In ${d.year}, ${d.author} said: “${q.quote}”` : d.year !== null ? `In ${d.year}: “${q.quote}”` : quotedAt(q, sourceOf);
}

/** An undated quote, introduced by where it is when `sourceOf` says. */
const quotedAt = (q: Quote, sourceOf?: (q: Quote) => string): string => (sourceOf ? `${sourceOf(q)}: “${q.quote}”` : `“${q.quote}”`);

/**
 * A change over time: one section per period (consecutive eras merged until each holds enough quotes),
 * titled by what that period says more than the others, and a lede that states what changed from the first
 * period to the last, quoting each, before the counts.
 */
function changeReport(quotes: Quote[], sourceTitles: ReadonlyMap<string, string>, ctx: ProseContext, yearOf: (q: Quote) => number): ReportProse {
  const sorted = [...quotes].sort((a, b) => yearOf(a) - yearOf(b));
  const periods = periodsOf(sorted, yearOf);
  const texts = periods.map((p) => p.map((q) => q.quote));
  const span = (p: Quote[]): string => {
    const lo = yearOf(p[0]!);
    const hi = yearOf(p[p.length - 1]!);
    return lo === hi ? String(lo) : `${lo}–${hi}`;
  };
  const used = new Set<string>();
  const themes = periods.map((p, i) => {
    const t = groundedTitle(texts[i]!, texts.filter((_, j) => j !== i), null, used, specificityOf(ctx));
    used.add(analyzeTerms(t).join(' '));
    return t;
  });
  const sections: ReportSection[] = periods.map((p, i) => ({ title: `${span(p)}: ${themes[i]}`, paragraphs: paragraphsOf(p, true, yearOf).map((g) => paragraph(g, true)) }));
  const lower = (s: string): string => (/^\p{Lu}\p{Ll}+$/u.test(s.split(' ')[0]!) && !ctx.isName(s.split(' ')[0]!) ? s.charAt(0).toLowerCase() + s.slice(1) : s);
  const moves = periods.map((p, i) => `${i === 0 ? 'in' : i === periods.length - 1 ? 'and by' : 'in'} ${span(p)} of ${lower(themes[i]!)}`);
  const first = centralQuotes(periods[0]!, 1)[0]!;
  const last = periods.length > 1 ? centralQuotes(periods[periods.length - 1]!, 1)[0]! : null;
  const changed = periods.length > 1 ? `What changed: the passages speak ${moves.join(', ')}.` : `All the passages come from ${span(periods[0]!)}, on ${lower(themes[0]!)}.`;
  const figures = citedFigures(
    quotes.flatMap((q) => q.citations.map((c) => c.sourceId)),
    (id) => sourceTitles.get(id),
  );
  const summary = [changed, said(first), last ? said(last) : '', countSentence(figures, ctx.vocabulary)].filter(Boolean).join(' ');
  return { summary, summaryCitations: [first, ...(last ? [last] : [])].map((q) => q.citations[0]!), sections };
}

/** Consecutive eras of ERA_YEARS, merged forward until each holds at least two quotes, at most MAX_PERIODS. */
function periodsOf(sorted: readonly Quote[], yearOf: (q: Quote) => number): Quote[][] {
  const byEra = new Map<number, Quote[]>();
  for (const q of sorted) byEra.set(Math.floor(yearOf(q) / ERA_YEARS), [...(byEra.get(Math.floor(yearOf(q) / ERA_YEARS)) ?? []), q]);
  let groups = [...byEra.entries()].sort((a, b) => a[0] - b[0]).map(([, qs]) => qs);
  const min = Math.max(2, Math.ceil(sorted.length / (MAX_PERIODS * 1.5)));
  const merged: Quote[][] = [];
  for (const g of groups) {
    const last = merged[merged.length - 1];
    if (last && last.length < min) last.push(...g);
    else merged.push([...g]);
  }
  if (merged.length > 1 && merged[merged.length - 1]!.length < min) merged[merged.length - 2]!.push(...merged.pop()!);
  groups = merged;
  while (groups.length > MAX_PERIODS) {
    // Merge the smallest adjacent pair.
    let k = 0;
    for (let i = 1; i < groups.length - 1; i++) if (groups[i]!.length + groups[i + 1]!.length < groups[k]!.length + groups[k + 1]!.length) k = i;
    groups.splice(k, 2, [...groups[k]!, ...groups[k + 1]!]);
  }
  return groups;
}

/** The overview first, then the sections by the median year of their quotes. */
function inTimeOrder<T extends { section: ChosenSection; quotes: Quote[] }>(shown: T[], yearOf: (q: Quote) => number): T[] {
  const median = (s: T): number => yearOf(s.quotes[Math.floor((s.quotes.length - 1) / 2)]!);
  return [...shown].sort((a, b) => Number(b.section.subtopicId === OVERVIEW_ID) - Number(a.section.subtopicId === OVERVIEW_ID) || median(a) - median(b) || yearOf(a.quotes[0]!) - yearOf(b.quotes[0]!));
}

/** Dated: a paragraph per period (a new one past ERA_YEARS from its first quote). Undated: similar quotes together. */
export function paragraphsOf(quotes: readonly Quote[], dated: boolean, yearOf: (q: Quote) => number): Quote[][] {
  const out: Quote[][] = [];
  for (const q of quotes) {
    const last = out[out.length - 1];
    const joins = last && last.length < PER_PARAGRAPH && (dated ? yearOf(q) - yearOf(last[0]!) < ERA_YEARS : similarity(last, q) >= SAME_ARGUMENT);
    if (joins) last.push(q);
    else out.push([q]);
  }
  return out;
}

/**
 * A paragraph of quotes, each introduced by who said it and when; a quote of an undated source by where it is
 * (`sourceOf`, "pg-pool/README.md (events > error)"), where a comparison of documents shows it.
 */
export function paragraph(group: readonly Quote[], dated: boolean, sourceOf?: (q: Quote) => string): ReportParagraph {
  const parts: string[] = [];
  let previous: string | null = null;
  for (const q of group) {
    const d = q.dates[0]!;
    if (!dated) parts.push(q.quote);
    else if (d.year === null) parts.push(quotedAt(q, sourceOf));
    else if (!d.author) parts.push(`In ${when(q)}: “${q.quote}”`);
    else if (d.author === previous) parts.push(`${surname(d.author)} added in ${when(q)}: “${q.quote}”`);
    else parts.push(`In ${when(q)}, ${d.author}${others(q)} said: “${q.quote}”`);
    previous = d.author;
  }
  return { text: parts.join(' '), citations: group.flatMap((q) => q.citations) };
}

/** "1905" or, for a quote said again, "1905 (and again in 1906)". */
function when(q: Quote): string {
  const d = q.dates[0]!;
  const again = q.dates.slice(1).filter((x) => x.author === d.author && x.year !== null && x.year !== d.year);
  return again.length ? `${d.year} (and again in ${listAnd(again.map((x) => String(x.year)))})` : String(d.year);
}

/** Others who said the same: " (as did Calvin Coolidge in 1925)". */
function others(q: Quote): string {
  const d = q.dates[0]!;
  const more = q.dates.slice(1).filter((x) => x.author !== d.author && x.author);
  return more.length ? ` (as did ${listAnd(more.map((x) => `${x.author} in ${x.year}`))})` : '';
}

function similarity(group: readonly Quote[], q: Quote): number {
  const vec = (terms: Iterable<string>): Map<string, number> => {
    const m = new Map<string, number>();
    for (const t of terms) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  };
  return cosine(vec(group.flatMap((g) => [...g.terms])), vec(q.terms));
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

export const surname = (name: string): string => name.replace(/,?\s+(Jr|Sr|II|III)\.?$/i, '').split(/\s+/).pop() ?? name;

export function listAnd(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
