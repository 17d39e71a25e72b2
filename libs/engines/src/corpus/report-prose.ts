import type { Citation, Finding, ReportParagraph, ReportSection } from '@orrery/protocol';
import { cosine } from './corpus-index';
import type { CorpusVocabulary } from './corpus-vocabulary';
import { titleParts } from './documents';
import { ERA_YEARS } from './eras';
import { OVERVIEW_ID } from './subtopic-builder';
import { analyzeTerms } from './text-analysis';

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

/** Themes the lede names at most. */
const MAX_THEMES = 5;
/** The lede says where the evidence is densest when one period holds at least this share of it. */
const DENSE_SHARE = 0.25;
/** A section that is a period of time ("1860–1879"). */
const PERIOD = /^\d{3,4}\s*[–-]\s*\d{3,4}$/;

/** Quotes in one paragraph at most. */
const PER_PARAGRAPH = 3;
/** Two quotes whose words overlap this much (Jaccard of their terms) say the same thing: one is shown. */
export const NEAR_DUPLICATE = 0.7;
/** Undated quotes share a paragraph when their term vectors are at least this similar. */
const SAME_ARGUMENT = 0.12;

interface Quote {
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
  /** Whether a capitalized word is a name (kept capitalized inside a sentence) rather than a common word. */
  isName: (word: string) => boolean;
}

export function writeReport(topic: string, chosen: readonly ChosenSection[], sourceTitles: ReadonlyMap<string, string>, ctx: ProseContext): ReportProse {
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
  const yearOf = (q: Quote): number => q.dates[0]!.year ?? 0;
  if (dated) for (const s of shown) s.quotes.sort((a, b) => yearOf(a) - yearOf(b));
  const ordered = dated ? inTimeOrder(shown, yearOf) : shown;
  const sections: ReportSection[] = ordered.map(({ section, quotes }) => ({
    title: section.title,
    subtopicId: section.subtopicId,
    paragraphs: paragraphsOf(quotes, dated, yearOf).map((group) => paragraph(group, dated)),
  }));
  return { ...lede(topic, ordered, dated, ctx, yearOf), sections };
}

/** The overview first, then the sections by the median year of their quotes. */
function inTimeOrder<T extends { section: ChosenSection; quotes: Quote[] }>(shown: T[], yearOf: (q: Quote) => number): T[] {
  const median = (s: T): number => yearOf(s.quotes[Math.floor((s.quotes.length - 1) / 2)]!);
  return [...shown].sort((a, b) => Number(b.section.subtopicId === OVERVIEW_ID) - Number(a.section.subtopicId === OVERVIEW_ID) || median(a) - median(b) || yearOf(a.quotes[0]!) - yearOf(b.quotes[0]!));
}

/** Dated: a paragraph per period (a new one past ERA_YEARS from its first quote). Undated: similar quotes together. */
function paragraphsOf(quotes: readonly Quote[], dated: boolean, yearOf: (q: Quote) => number): Quote[][] {
  const out: Quote[][] = [];
  for (const q of quotes) {
    const last = out[out.length - 1];
    const joins = last && last.length < PER_PARAGRAPH && (dated ? yearOf(q) - yearOf(last[0]!) < ERA_YEARS : similarity(last, q) >= SAME_ARGUMENT);
    if (joins) last.push(q);
    else out.push([q]);
  }
  return out;
}

function paragraph(group: readonly Quote[], dated: boolean): ReportParagraph {
  const parts: string[] = [];
  let previous: string | null = null;
  for (const q of group) {
    const d = q.dates[0]!;
    if (!dated) parts.push(q.quote);
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

/**
 * The lede: what the cited evidence is (passages, documents, authors) and the span it covers, citing the
 * earliest and the latest passage; then the themes in the order the report takes them, with their years;
 * then where the evidence concentrates. Figures only from what the report cites.
 */
function lede(
  topic: string,
  shown: readonly { section: ChosenSection; quotes: Quote[] }[],
  dated: boolean,
  ctx: ProseContext,
  yearOf: (q: Quote) => number,
): { summary: string; summaryCitations: Citation[] } {
  const v = ctx.vocabulary;
  // Inside a sentence, a title's first word keeps its capital only if it is a name ("New York", not "Illegal").
  const inSentence = (s: string): string => {
    const first = /^\p{Lu}\p{Ll}+/u.exec(s)?.[0];
    const nameRun = /^\p{Lu}\p{Ll}+\s+\p{Lu}/u.test(s);
    return first && !nameRun && !ctx.isName(first) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
  };
  const subject = inSentence(subjectOf(topic));
  const quotes = shown.flatMap((s) => s.quotes);
  if (quotes.length === 0) return { summary: `No on-topic evidence about “${topic}” was found in the corpus.`, summaryCitations: [] };
  const citations = quotes.flatMap((q) => q.citations);
  const passages = new Set(citations.map((c) => c.sourceId)).size;
  // Themes are the facet sections; a period's own section ("1860–1879") is time, which the lede gives as a span.
  const themes = shown.filter((s) => s.section.subtopicId !== OVERVIEW_ID && !PERIOD.test(s.section.title));
  // The most cited themes, in the report's order; of two cited alike, a phrase ("illegal immigration") says more than a lone name.
  const weight = (t: { section: ChosenSection; quotes: Quote[] }): number => t.quotes.length + (/\s/.test(t.section.title) ? 0.5 : 0);
  const top = (n: number) => {
    const keep = new Set([...themes].sort((a, b) => weight(b) - weight(a)).slice(0, n));
    return themes.filter((t) => keep.has(t));
  };
  const sentences: string[] = [];
  let cite: Citation[];
  if (dated) {
    const byYear = [...quotes].sort((a, b) => yearOf(a) - yearOf(b));
    const first = byYear[0]!;
    const last = byYear[byYear.length - 1]!;
    const docs = new Set(quotes.flatMap((q) => q.dates.map((d) => `${d.year} ${d.author}`))).size;
    const authors = new Set(quotes.flatMap((q) => q.dates.map((d) => d.author)).filter((a): a is string => !!a));
    const by = authors.size ? ` by ${authors.size} ${authors.size === 1 ? v.author : v.authors}` : '';
    const from = (q: Quote): string => (q.dates[0]!.author ? `${q.dates[0]!.author} in ${yearOf(q)}` : String(yearOf(q)));
    sentences.push(`${passages} passages from ${docs} ${docs === 1 ? v.document : v.documents}${by} speak to ${subject}, from ${from(first)} to ${from(last)}.`);
    cite = [first.citations[0]!, last.citations[0]!];
    if (themes.length) {
      const span = (s: { quotes: Quote[] }): string => {
        const ys = s.quotes.map(yearOf);
        const lo = Math.min(...ys);
        const hi = Math.max(...ys);
        return lo === hi ? String(lo) : `${lo}–${hi}`;
      };
      const named = top(MAX_THEMES).map((s) => `${inSentence(s.section.title)} (${span(s)})`);
      const more = themes.length > MAX_THEMES ? [`${themes.length - MAX_THEMES} more themes`] : [];
      sentences.push(`In time order, its main themes are ${listAnd([...named, ...more])}.`);
    }
    // Where the evidence concentrates: the era with the most passages, and who is quoted most.
    const eras = new Map<number, number>();
    for (const q of quotes) eras.set(Math.floor(yearOf(q) / ERA_YEARS), (eras.get(Math.floor(yearOf(q) / ERA_YEARS)) ?? 0) + q.citations.length);
    const [era, n] = [...eras.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]!;
    const speakers = new Map<string, number>();
    for (const q of quotes) for (const d of q.dates) if (d.author) speakers.set(d.author, (speakers.get(d.author) ?? 0) + 1);
    const [most, m] = [...speakers.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? ['', 0];
    if (eras.size > 1 && n >= DENSE_SHARE * passages) {
      const who = m >= 2 ? `, and ${most} is quoted most (${m} passages)` : '';
      sentences.push(`The evidence is densest in ${era * ERA_YEARS}–${era * ERA_YEARS + ERA_YEARS - 1} (${n} of ${passages} passages)${who}.`);
    }
  } else {
    sentences.push(`${passages} ${passages === 1 ? 'passage' : 'passages'} of the corpus speak to ${subject}.`);
    cite = [quotes.reduce((best, q) => (q.relevance > best.relevance ? q : best)).citations[0]!];
    if (themes.length) {
      const named = top(MAX_THEMES).map((s) => inSentence(s.section.title));
      const more = themes.length > MAX_THEMES ? [`${themes.length - MAX_THEMES} more`] : [];
      sentences.push(`The report covers ${themes.length} ${themes.length === 1 ? 'aspect' : 'aspects'}: ${listAnd([...named, ...more])}.`);
    }
    const biggest = [...shown].sort((a, b) => b.quotes.length - a.quotes.length)[0]!;
    if (shown.length > 1 && biggest.quotes.length > 1) sentences.push(`Most evidence bears on ${inSentence(biggest.section.title)} (${biggest.quotes.length} passages).`);
  }
  const unique = cite.filter((c, i) => cite.findIndex((x) => x.sourceId === c.sourceId) === i);
  return { summary: sentences.join(' '), summaryCitations: unique };
}

/**
 * What a topic is about, to name it in a sentence: a title topic as it is ("Hurricane Idalia"); a question cut
 * to what follows its framing verb ("the economy" in "How have presidents addressed the economy?").
 */
export function subjectOf(topic: string): string {
  const t = topic.trim().replace(/[?.!]+$/, '');
  const m = /\b(?:talk(?:ed|s)?|address(?:ed|es)?|discuss(?:ed|es)?|sa(?:y|id|ys)|describ(?:e|ed|es)|view(?:ed|s)?|approach(?:ed|es)?|handl(?:e|ed|es)|deal(?:t|s)?|thought|think|spoke|speak)\s+(?:about\s+|of\s+|on\s+|with\s+)?(.+)$/i.exec(t);
  const core = (m?.[1] ?? t).trim();
  return core.length > 80 ? `${core.slice(0, 77)}...` : core;
}

function similarity(group: readonly Quote[], q: Quote): number {
  const vec = (terms: Iterable<string>): Map<string, number> => {
    const m = new Map<string, number>();
    for (const t of terms) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  };
  return cosine(vec(group.flatMap((g) => [...g.terms])), vec(q.terms));
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

const surname = (name: string): string => name.replace(/,?\s+(Jr|Sr|II|III)\.?$/i, '').split(/\s+/).pop() ?? name;

function listAnd(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
