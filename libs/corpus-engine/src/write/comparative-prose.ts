import type { Citation, ReportSection } from '@orrery/protocol';
import { centralQuotes } from './central-findings';
import type { ComparisonSide } from '../plan/comparison-sides';
import { citedFigures, sideCountPhrase } from './report-figures';
import { listAnd, paragraph, paragraphsOf, type ProseContext, type Quote, said, surname } from './report-prose';
import { analyzeTerms, sentenceSpans, titleCandidates } from '@orrery/language';
import { heldPhrase } from './section-titles';
import { sourcePlace } from './documents-prose';

/** Aspects (sections) a comparison is told in at most. */
const MAX_ASPECTS = 5;
/** A company aspect takes at most this many quotes a side, so one broad word ("cuts") leaves quotes for the next ("deficit"). */
const ASPECT_QUOTES_PER_SIDE = 3;
/** An aspect's words are at least this specific (IDF over the corpus's largest among the quotes' words). */
const GENERIC = 0.35;
/** A two-word phrase names an aspect better than either word alone ("tax cuts" over "cuts"). */
const PHRASE_WEIGHT = 1.5;
/** Quotes an aspect holds at least, over both sides: one quote each is a coincidence of words, not an aspect. */
const MIN_ASPECT_QUOTES = 3;
/** Words per side the lede names as what that side dwells on. */
const DISTINCTIVE = 2;

/**
 * A comparison: sections per aspect (a keyphrase both sides' quotes use), each with both sides, and a lede
 * that states the contrast from the evidence: what each side says that the other does not (the words of its
 * quotes with the highest log-odds against the other side's), quoting each, then each side's counts.
 */
export function comparativeReport(
  subject: string,
  sides: readonly ComparisonSide[],
  perSide: ReadonlyMap<string, Quote[]>,
  sourceTitles: ReadonlyMap<string, string>,
  sourceText: ReadonlyMap<string, string>,
  ctx: ProseContext,
): { summary: string; summaryCitations: Citation[]; sections: ReportSection[] } {
  const present = sides.filter((s) => (perSide.get(s.subtopicId) ?? []).length > 0);
  const subjectTerms = new Set(analyzeTerms(subject));
  const coreTerms = new Set(analyzeTerms(subjectCore(subject)));
  const says = ctx.saysSubject ?? (() => true);
  // A sentence on the subject: a word of its core, in the sense asked ("the trusts", not "I trust").
  const names = (sentence: string): boolean => coreTerms.size === 0 || (analyzeTerms(sentence).some((t) => coreTerms.has(t)) && says(sentence));
  const sideTerms = new Set(sides.flatMap((s) => [...analyzeTerms(s.label), ...analyzeTerms(s.name), ...s.terms]));
  // An aspect names something beyond the subject ("tax cuts" on taxes, not "taxes"), and never a side.
  const aspectKey = (key: string): boolean => {
    const stems = key.split(' ');
    return !stems.some((k) => sideTerms.has(k)) && stems.some((k) => !subjectTerms.has(k));
  };
  const keysOf = new Map<Quote, Map<string, string>>();
  for (const qs of perSide.values())
    for (const q of qs) {
      const m = new Map<string, string>();
      // The passage's sentences on the subject say what it is about ("private sector" beside "government"; not
      // "story" in "history tells a different story"); the quote is then the sentence that says the aspect.
      for (const c of titleCandidates(onSubject(sourceText.get(q.citations[0]!.sourceId) ?? q.quote, names))) if (aspectKey(c.key) && !m.has(c.key)) m.set(c.key, c.surface);
      keysOf.set(q, m);
    }
  const yearOf = (q: Quote): number => q.dates[0]!.year ?? 0;
  // A word most passages of the corpus use ("States", "Government") names no aspect.
  const idfs = [...keysOf.values()].flatMap((m) => [...m.keys()]).flatMap((k) => k.split(' ')).map((t) => ctx.idf?.(t) ?? 1);
  const maxIdf = Math.max(1e-9, ...idfs);
  // The subject's words are in every quote: a phrase is as specific as its other words.
  const specificity = (key: string): number => Math.min(...key.split(' ').filter((t) => !subjectTerms.has(t)).map((t) => (ctx.idf?.(t) ?? maxIdf) / maxIdf));
  // A phrase is as specific as its most specific word: "private sector" names what "sector" alone does not.
  const aspectSpecificity = (key: string): number => Math.max(...key.split(' ').filter((t) => !subjectTerms.has(t)).map((t) => (ctx.idf?.(t) ?? maxIdf) / maxIdf));
  // What the subject keeps company with across the corpus names an aspect better than what is rare among these quotes.
  const company = ctx.company?.([...coreTerms].filter((t) => !sideTerms.has(t)));
  // Aspects: greedily, the keyphrase the least-covered side says most, among quotes not yet placed.
  const placed = new Set<Quote>();
  const aspects: { key: string; surface: string; quotes: Quote[] }[] = [];
  if (company) aspects.push(...companyAspects(present, perSide, company, aspectSpecificity, new Set([...subjectTerms, ...sideTerms]), names, sourceText, placed));
  // Where the company names no aspect both sides speak to (a subject few passages hold), the phrases they share do.
  const byPhrase = aspects.length === 0;
  while (byPhrase && aspects.length < MAX_ASPECTS && present.length >= 2) {
    const counts = new Map<string, { per: Map<string, number>; surface: string }>();
    for (const s of present)
      for (const q of perSide.get(s.subtopicId)!) {
        if (placed.has(q)) continue;
        for (const [k, surface] of keysOf.get(q)!) {
          const e = counts.get(k) ?? { per: new Map(), surface };
          e.per.set(s.subtopicId, (e.per.get(s.subtopicId) ?? 0) + 1);
          counts.set(k, e);
        }
      }
    let best: { key: string; min: number; sum: number; surface: string } | null = null;
    for (const [key, e] of counts) {
      const min = Math.min(...present.map((s) => e.per.get(s.subtopicId) ?? 0));
      const sum = [...e.per.values()].reduce((a, b) => a + b, 0) * aspectSpecificity(key) ** 2 * (key.includes(' ') ? PHRASE_WEIGHT : 1);
      if (min === 0 || aspectSpecificity(key) < GENERIC || [...e.per.values()].reduce((a, b) => a + b, 0) < MIN_ASPECT_QUOTES) continue;
      if (!best || sum > best.sum || (sum === best.sum && key < best.key)) best = { key, min, sum, surface: e.surface };
    }
    if (!best) break;
    const quotes = present.flatMap((s) => perSide.get(s.subtopicId)!.filter((q) => !placed.has(q) && keysOf.get(q)!.has(best!.key)));
    for (const q of quotes) {
      placed.add(q);
      requote(q, best.key, subject, sourceText);
    }
    aspects.push({ key: best.key, surface: best.surface, quotes });
  }
  // What no aspect took joins an aspect whose words it holds (most shared words first); the rest on the subject
  // form a section named by the subject itself, never by one quote's stray phrase. A passage with no sentence on
  // the subject ("our troops have moved to a support role") is left out.
  const rest = present.flatMap((s) => perSide.get(s.subtopicId)!.filter((q) => !placed.has(q) && onSubject(sourceText.get(q.citations[0]!.sourceId) ?? q.quote, names)));
  const holds = (q: Quote, a: (typeof aspects)[number]): boolean => a.key.split(' ').some((k) => !subjectTerms.has(k) && q.terms.has(k));
  const surface = subjectSurface(subject, rest) ?? (subject || (titleCandidates(rest[0]?.quote ?? '')[0]?.surface ?? ''));
  const onTheSubject = { key: analyzeTerms(surface).join(' '), surface, quotes: [] as Quote[] };
  for (const q of rest) {
    const shared = (a: (typeof aspects)[number]): number => a.quotes.reduce((n, x) => n + [...q.terms].filter((t) => x.terms.has(t)).length, 0) / Math.max(1, a.quotes.length);
    const home = aspects.filter((a) => holds(q, a)).sort((a, b) => shared(b) - shared(a))[0];
    if (home) home.quotes.push(q);
    else {
      requoteOnSubject(q, names, sourceText);
      onTheSubject.quotes.push(q);
    }
  }
  if (onTheSubject.quotes.length) aspects.push(onTheSubject);
  // What the report cites: the quotes its sections hold (the lede's counts and quotes come from these alone).
  const kept = new Set(aspects.flatMap((a) => a.quotes));
  const cited = (s: ComparisonSide): Quote[] => perSide.get(s.subtopicId)!.filter((q) => kept.has(q));
  const sideOf = new Map<Quote, ComparisonSide>();
  for (const s of present) for (const q of perSide.get(s.subtopicId)!) sideOf.set(q, s);
  // A quote of a document is introduced by where it is, as a speech's is by who said it and when.
  const place = (q: Quote): string => sourcePlace(q.citations[0]!.sourceId, sourceTitles.get(q.citations[0]!.sourceId));
  const sections: ReportSection[] = aspects.map((a) => ({
    title: capitalize(a.surface),
    paragraphs: present
      .map((s) => a.quotes.filter((q) => sideOf.get(q) === s).sort((x, y) => yearOf(x) - yearOf(y)))
      .filter((qs) => qs.length > 0)
      .flatMap((qs) => paragraphsOf(qs, true, yearOf).map((g) => paragraph(g, true, place))),
  }));

  // The lede: what each side dwells on that the other does not, with a quote that says it.
  const named = (s: ComparisonSide): string => (s.authors ? surname(s.name) : s.name);
  const contrast: string[] = [];
  const cites: Citation[] = [];
  // The lede's phrases are its quotes' own, so the quote it gives says what it names.
  const quoteKeys = new Map([...kept].map((q) => [q, new Map(titleCandidates(q.quote).filter((c) => aspectKey(c.key)).map((c) => [c.key, c.surface] as const))]));
  // It contrasts what each side says most squarely on the subject: its quotes holding every word of it, where any does
  // ("Government has no role", not "a support role" beside "the Afghan Government").
  const squarely = (qs: Quote[]): Quote[] => {
    const all = qs.filter((q) => [...subjectTerms].every((t) => q.terms.has(t)) && says(q.quote));
    return all.length ? all : qs;
  };
  for (const s of present) {
    const mine = squarely(cited(s));
    const theirs = present.filter((o) => o !== s).flatMap((o) => squarely(cited(o)));
    const words = distinctive(mine, theirs, quoteKeys, specificity, company);
    const quote = centralQuotes(mine.filter((q) => words.some((w) => titleCandidates(q.quote).some((c) => c.key === w.key))), 1)[0] ?? centralQuotes(mine, 1)[0]!;
    const dwell = words.length ? ` dwell on ${listAnd(words.map((w) => w.surface.toLowerCase() === w.surface ? w.surface : w.surface))}` : ' speak of it';
    contrast.push(`${possessiveName(named(s))} passages${dwell}: ${said(quote, place)}`);
    cites.push(quote.citations[0]!);
  }
  const missing = sides.filter((s) => !present.includes(s));
  const aspectsNamed = aspects.filter((a) => a !== onTheSubject);
  const both = present.length >= 2 ? `${listAnd(present.map((s) => s.name))} both speak of ${subject || 'it'}${aspectsNamed.length ? `, on ${listAnd(aspectsNamed.map((a) => a.surface.toLowerCase() === a.surface ? a.surface : a.surface))}` : ''}.` : '';
  // One side silent is the first thing a reader of a comparison needs to know.
  const silent = `no word from ${listAnd(missing.map((s) => s.name))} on ${subject || 'it'}`;
  const only = !missing.length ? '' : present.length ? `Only ${listAnd(present.map((s) => s.name))} ${present.length === 1 ? 'speaks' : 'speak'} of ${subject || 'it'}; the corpus holds ${silent}.` : `The corpus holds ${silent}.`;
  const figures = present.map((s) =>
    sideCountPhrase(
      s.name,
      citedFigures(
        cited(s).flatMap((q) => q.citations.map((c) => c.sourceId)),
        (id) => sourceTitles.get(id),
      ),
      ctx.vocabulary,
      s.authors !== null,
    ),
  );
  const counts = figures.length ? ` The report cites ${listAnd(figures)}.` : '';
  const summary = `${only}${both} ${contrast.join(' ')}${counts}`.replace(/\s+/g, ' ').trim();
  return { summary, summaryCitations: cites, sections: sections.filter((s) => s.paragraphs.length) };
}

/**
 * Quote the sentence of the passage that says the aspect (with the subject's words where one does), when the
 * quote chosen by the search does not: the citation still quotes its source verbatim.
 */
function requote(q: Quote, key: string, subject: string, sourceText: ReadonlyMap<string, string>): void {
  if (q.citations.length !== 1 || titleCandidates(q.quote).some((c) => c.key === key)) return;
  const text = sourceText.get(q.citations[0]!.sourceId);
  if (!text) return;
  const want = new Set(analyzeTerms(subject));
  const sentences = sentenceSpans(text).filter((s) => s.text.length <= 600 && titleCandidates(s.text).some((c) => c.key === key));
  const best = sentences.sort((a, b) => Number(analyzeTerms(b.text).some((t) => want.has(t))) - Number(analyzeTerms(a.text).some((t) => want.has(t))) || a.text.length - b.text.length)[0];
  if (!best) return;
  q.quote = best.text;
  q.terms = new Set(analyzeTerms(best.text));
  q.citations[0] = { ...q.citations[0]!, quote: best.text };
}

/** What a passage must speak of: "the role of government" is about government, what follows "of". */
export const subjectCore = (subject: string): string => /\bof\s+(.+)$/i.exec(subject)?.[1] ?? subject;

/**
 * Aspects named by what the subject keeps company with (`company`, stem → weight): greedily, the company word
 * whose passages on both sides hold it (at most ASPECT_QUOTES_PER_SIDE a side) weigh most, times the square of how
 * specific the word is among these quotes (so "lives" or "system" do not name an aspect), at least one a side and
 * MIN_ASPECT_QUOTES in all, titled by a noun phrase with it (`heldPhrase`); each member is then quoted by its sentence
 * that says the word. Taken quotes go to `placed`.
 */
function companyAspects(
  present: readonly ComparisonSide[],
  perSide: ReadonlyMap<string, Quote[]>,
  company: ReadonlyMap<string, number>,
  specificity: (stem: string) => number,
  notAspects: ReadonlySet<string>,
  names: (sentence: string) => boolean,
  sourceText: ReadonlyMap<string, string>,
  placed: Set<Quote>,
): { key: string; surface: string; quotes: Quote[] }[] {
  const stemsOf = new Map<Quote, Set<string>>();
  // The sentences on the subject and those beside them: an aspect is often said next to the subject's sentence
  // ("atomic energy" after "nuclear"), but not three sentences on ("long-range pricing policy").
  for (const qs of perSide.values()) for (const q of qs) stemsOf.set(q, new Set(analyzeTerms(nearSubject(sourceText.get(q.citations[0]!.sourceId) ?? q.quote, names).join(' '))));
  const aspects: { key: string; surface: string; quotes: Quote[] }[] = [];
  // A word its quotes never say as a noun ("raising") names no aspect.
  const untitled = new Set<string>();
  while (aspects.length < MAX_ASPECTS && present.length >= 2) {
    let best: { stem: string; score: number; quotes: Quote[] } | null = null;
    for (const [stem, weight] of company) {
      if (notAspects.has(stem) || untitled.has(stem) || specificity(stem) < GENERIC) continue;
      const per = present.map((s) => perSide.get(s.subtopicId)!.filter((q) => !placed.has(q) && stemsOf.get(q)!.has(stem)).slice(0, ASPECT_QUOTES_PER_SIDE));
      const total = per.reduce((a, qs) => a + qs.length, 0);
      if (per.some((qs) => qs.length === 0) || total < MIN_ASPECT_QUOTES) continue;
      const score = total * weight * specificity(stem) ** 2;
      if (!best || score > best.score) best = { stem, score, quotes: per.flat() };
    }
    if (!best) break;
    for (const q of best.quotes) requoteWord(q, best.stem, names, sourceText);
    // Titled by the noun phrase with the word that most of its quotes say ("Tax cuts"), or not an aspect.
    const title = heldPhrase([best.stem], best.quotes);
    // Capped aspects can meet the same phrase twice ("Tax cuts"); a title names one section.
    if (!title || aspects.some((a) => a.surface.toLowerCase() === title.toLowerCase())) {
      untitled.add(best.stem);
      continue;
    }
    for (const q of best.quotes) placed.add(q);
    aspects.push({ key: best.stem, surface: title, quotes: best.quotes });
  }
  return aspects;
}

/** Quote the passage's shortest sentence that says `stem`, on the subject when one is. */
function requoteWord(q: Quote, stem: string, names: (sentence: string) => boolean, sourceText: ReadonlyMap<string, string>): void {
  if (q.citations.length !== 1 || q.terms.has(stem)) return;
  const best = nearSubject(sourceText.get(q.citations[0]!.sourceId) ?? '', names)
    .map((text) => ({ text, terms: new Set(analyzeTerms(text)) }))
    .filter((x) => x.text.length <= 600 && x.terms.has(stem))
    .sort((a, b) => Number(names(b.text)) - Number(names(a.text)) || a.text.length - b.text.length)[0];
  if (!best) return;
  q.quote = best.text;
  q.terms = best.terms;
  q.citations[0] = { ...q.citations[0]!, quote: best.text };
}

/** Quote the passage's shortest sentence on the subject when the search's quote is not on it ("a role in trade" for the role of government). */
function requoteOnSubject(q: Quote, names: (sentence: string) => boolean, sourceText: ReadonlyMap<string, string>): void {
  if (q.citations.length !== 1 || names(q.quote)) return;
  const best = sentenceSpans(sourceText.get(q.citations[0]!.sourceId) ?? '')
    .filter((x) => x.text.length <= 600 && names(x.text))
    .sort((a, b) => a.text.length - b.text.length)[0];
  if (!best) return;
  q.quote = best.text;
  q.terms = new Set(analyzeTerms(best.text));
  q.citations[0] = { ...q.citations[0]!, quote: best.text };
}

/** The keyphrases one side's quotes use most against the other's (log-odds, add-one smoothing), each said in two of its quotes and, given the subject's company, holding a word of it. */
function distinctive(mine: readonly Quote[], theirs: readonly Quote[], keysOf: ReadonlyMap<Quote, Map<string, string>>, specificity: (key: string) => number, company?: ReadonlyMap<string, number>): { key: string; surface: string }[] {
  const count = (qs: readonly Quote[]): Map<string, { n: number; surface: string }> => {
    const m = new Map<string, { n: number; surface: string }>();
    for (const q of qs) for (const [k, s] of keysOf.get(q)!) m.set(k, { n: (m.get(k)?.n ?? 0) + 1, surface: m.get(k)?.surface ?? s });
    return m;
  };
  const a = count(mine);
  const b = count(theirs);
  const scored = [...a.entries()]
    .map(([k, e]) => ({ key: k, surface: e.surface, n: e.n, score: (Math.log((e.n + 1) / (mine.length + 2)) - Math.log(((b.get(k)?.n ?? 0) + 1) / (theirs.length + 2))) * specificity(k) }))
    // What the subject keeps company with across the corpus, not a phrase of the moment ("United States", "joint letter").
    .filter((x) => x.score > 0 && (!company || x.key.split(' ').some((w) => company.has(w))))
    .sort((x, y) => y.score - x.score || y.n - x.n || x.key.localeCompare(y.key));
  // A side dwells on what several of its quotes say ("accompanying documents", said once, is no contrast), and the
  // contrast is told in phrases ("Afghan forces", not "Afghan"), in words only where no phrase is said twice.
  const repeated = scored.filter((x) => x.n >= 2);
  const phrases = repeated.filter((x) => x.key.includes(' '));
  const pool = phrases.length ? phrases : repeated;
  const out: { key: string; surface: string }[] = [];
  for (const x of pool) {
    if (out.length >= DISTINCTIVE) break;
    if (out.some((o) => o.key.split(' ').some((w) => x.key.split(' ').includes(w)))) continue;
    out.push({ key: x.key, surface: x.surface });
  }
  return out;
}

/** The sentences of a text on the subject (`names`). */
function onSubject(text: string, names: (sentence: string) => boolean): string {
  return sentenceSpans(text)
    .filter((s) => names(s.text))
    .map((s) => s.text)
    .join(' ');
}

/** The sentences of a text on the subject (`names`) and those next to one. */
function nearSubject(text: string, names: (sentence: string) => boolean): string[] {
  const spans = sentenceSpans(text).map((x) => x.text);
  const on = spans.map(names);
  return spans.filter((_, i) => on[i] || on[i - 1] || on[i + 1]);
}

/** The subject as its quotes write it ("War" for "war"), when they do. */
function subjectSurface(subject: string, quotes: readonly Quote[]): string | null {
  const terms = analyzeTerms(subject);
  for (const q of quotes) for (const c of titleCandidates(q.quote)) if (c.key === terms.join(' ')) return c.surface;
  return null;
}

const possessiveName = (name: string): string => (/s$/.test(name) ? `${name}’` : `${name}’s`);
const capitalize = (s: string): string => (/^\p{Ll}+\p{Lu}/u.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1));
