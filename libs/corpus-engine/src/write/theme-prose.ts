import { type Citation, quoteOccursIn, type ReportSection } from '@orrery/protocol';
import { citedFigures, concentrationSentence, countSentence } from './report-figures';
import { DENSE_SHARE, listAnd, paragraph, paragraphsOf, type ProseContext, type Quote, type ReportProse, specificityOf } from './report-prose';
import { analyzeTerms, sentenceSpans } from '@orrery/language';
import { subjectStems, type Theme, themesOf } from './themes';

/** Quotes one theme shows at most: a few that are about it, not all that match. */
export const PER_THEME = 3;
/** A theme of a report holds at least this many passages: two passages that share a phrase are seldom a theme a reader names. */
export const REPORT_THEME_MIN_QUOTES = 3;
/** A section's opener names its speakers up to this many, then counts the rest. */
const NAMED_SPEAKERS = 3;

/**
 * A report of dated quotes organised by theme: the evidence grouped by the phrases its passages share
 * (`themesOf` over each quote's whole passage, `passageText`, so a theme is found where the passage says it, not
 * only in the one sentence retrieval quoted), each member then quoted by the sentence of its passage that says the
 * theme's phrase (`themeSentence`), a few quotes per theme within the citation budget (the most relevant, shown in time order),
 * themes in the order of their median year, each section opened by who spoke, when and how often; the lede
 * names the themes in their order in time, then the counts of what is cited. Null when the evidence holds
 * fewer than two themes (the caller writes its sections as before).
 */
export function themedReport(
  pool: readonly Quote[],
  subject: string,
  budget: number,
  sourceTitles: ReadonlyMap<string, string>,
  ctx: ProseContext,
  yearOf: (q: Quote) => number,
  passageText: (sourceId: string) => string | undefined,
): ReportProse | null {
  const stems = subjectStems(subject);
  // One member per passage (two quotes of one passage are the same evidence), and only passages that name the subject.
  const passages = pool
    .filter((q, i) => pool.findIndex((o) => o.citations[0]!.sourceId === q.citations[0]!.sourceId) === i)
    .map((q) => {
      const sentences = subjectSentences(passageText(q.citations[0]!.sourceId) ?? q.quote, stems, ctx.saysSubject);
      const text = sentences.join(' ');
      return { quote: text, terms: new Set(analyzeTerms(text)), relevance: q.relevance, shown: q, sentences };
    })
    .filter((p) => p.quote.length > 0);
  // Subject sentences that say none of the words the subject keeps company with across the corpus use it in another sense ("an economic environment for small business").
  const words = ctx.company?.([...stems]);
  const inSense = words?.size ? passages.filter((p) => [...p.terms].some((t) => words.has(t))) : passages;
  const company = ctx.companyPhrases?.([...stems]);
  const found = themesOf(inSense, { subject: stems, specificity: specificityOf(ctx), ...(company ? { company } : {}), yearOf: (p) => yearOf(p.shown), minQuotes: REPORT_THEME_MIN_QUOTES });
  const themes: Theme<Quote>[] = found
    .map((t) => ({ ...t, quotes: t.quotes.map((p) => themeSentence(p.shown, p.sentences, analyzeTerms(t.title), passageText)).filter((q): q is Quote => q !== null) }))
    .filter((t) => t.quotes.length > 0);
  if (themes.length < 2) return null;
  const median = (qs: readonly Quote[]): number => yearOf([...qs].sort((a, b) => yearOf(a) - yearOf(b))[Math.floor((qs.length - 1) / 2)]!);
  const picked = withinBudget(themes, budget, (t) => {
    // A theme shows the quotes of the decades it is most said in first: its few quotes keep its period.
    const m = median(t.quotes);
    return (a, b) => Math.round(Math.abs(yearOf(a) - m) / 10) - Math.round(Math.abs(yearOf(b) - m) / 10) || b.relevance - a.relevance;
  });
  const ordered = themes
    .map((t, i) => ({ title: t.title, quotes: picked[i]!.sort((a, b) => yearOf(a) - yearOf(b) || b.relevance - a.relevance) }))
    .filter((t) => t.quotes.length > 0)
    .sort((a, b) => median(a.quotes) - median(b.quotes));
  const sections: ReportSection[] = ordered.map((t) => {
    const paragraphs = paragraphsOf(t.quotes, true, yearOf).map((g) => paragraph(g, true));
    paragraphs[0] = { ...paragraphs[0]!, text: `${opener(t.quotes, ctx, yearOf)} ${paragraphs[0]!.text}` };
    return { title: `${span(t.quotes, yearOf)}: ${t.title}`, paragraphs };
  });
  const cited = ordered.flatMap((t) => t.quotes);
  const figures = citedFigures(
    cited.flatMap((q) => q.citations.map((c) => c.sourceId)),
    (id) => sourceTitles.get(id),
  );
  const arc = arcSentence(
    ordered.map((t) => ({ title: t.title, decade: Math.floor(median(t.quotes) / 10) * 10 })),
    ctx,
  );
  const summary = [arc, countSentence(figures, ctx.vocabulary), concentrationSentence(figures, DENSE_SHARE)].filter(Boolean).join(' ');
  const summaryCitations: Citation[] = ordered.map((t) => [...t.quotes].sort((a, b) => b.relevance - a.relevance)[0]!.citations[0]!);
  return { summary, summaryCitations, sections };
}

/** Each theme's quotes in `order`, at most PER_THEME, taken round-robin over themes until `budget` sources are cited. */
function withinBudget(themes: readonly Theme<Quote>[], budget: number, order: (t: Theme<Quote>) => (a: Quote, b: Quote) => number): Quote[][] {
  const queues = themes.map((t) => [...t.quotes].sort(order(t)));
  const out: Quote[][] = themes.map(() => []);
  const cited = new Set<string>();
  let progressed = true;
  while (progressed) {
    progressed = false;
    queues.forEach((q, i) => {
      if (out[i]!.length >= PER_THEME || q.length === 0) return;
      const next = q.shift()!;
      const fresh = next.citations.filter((c) => !cited.has(c.sourceId)).length;
      if (cited.size + fresh > budget) return;
      for (const c of next.citations) cited.add(c.sourceId);
      out[i]!.push(next);
      progressed = true;
    });
  }
  return out;
}

/** "1882–1888" or "1905". */
function span(quotes: readonly Quote[], yearOf: (q: Quote) => number): string {
  const years = quotes.map(yearOf);
  const lo = Math.min(...years);
  const hi = Math.max(...years);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

/** "Theodore Roosevelt and William H. Taft, 1901–1910, in 4 passages:" — who, when, how many. */
export function opener(quotes: readonly Quote[], ctx: ProseContext, yearOf: (q: Quote) => number): string {
  // Speakers in the order they first spoke.
  const names = [...new Set([...quotes].sort((a, b) => yearOf(a) - yearOf(b)).flatMap((q) => q.dates.map((d) => d.author)))].filter((n): n is string => !!n);
  const rest = names.length - NAMED_SPEAKERS;
  const who = rest > 1 ? `${names.slice(0, NAMED_SPEAKERS).join(', ')} and ${rest} other ${ctx.vocabulary.authors}` : listAnd(names);
  const passages = new Set(quotes.flatMap((q) => q.citations.map((c) => c.sourceId))).size;
  const count = `${passages} ${passages === 1 ? 'passage' : 'passages'}`;
  const when = span(quotes, yearOf);
  return who ? `${who}, ${when}, in ${count}:` : `${when}, ${count}:`;
}

/** "The speeches move from Chinese exclusion in the 1880s to steamship companies in the 1900s and immigration reform in the 2010s." */
export function arcSentence(themes: readonly { title: string; decade: number }[], ctx: ProseContext): string {
  const lower = (s: string): string => {
    const [first, ...rest] = s.split(' ');
    // A name of several capitalized words ("Interstate Commerce Commission") keeps its first capital too.
    const named = rest.length > 0 && rest.every((w) => /^\p{Lu}/u.test(w));
    return /^\p{Lu}\p{Ll}+$/u.test(first!) && !named && !ctx.isName(first!) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
  };
  // Themes of one decade are named together: "steamship companies and undesirable immigrants in the 1900s".
  const byDecade: { decade: number; titles: string[] }[] = [];
  for (const t of themes) {
    const last = byDecade[byDecade.length - 1];
    if (last && last.decade === t.decade) last.titles.push(lower(t.title));
    else byDecade.push({ decade: t.decade, titles: [lower(t.title)] });
  }
  const parts = byDecade.map((d) => `${listAnd(d.titles)} in the ${d.decade}s`);
  if (parts.length === 1) return `The passages speak of ${parts[0]}.`;
  return `The passages move from ${parts[0]} to ${listAnd(parts.slice(1))}.`;
}

/** A sentence longer than this is not shown for a theme. */
const MAX_SENTENCE = 600;

/**
 * The sentences of a passage that name the subject (a word of it, in the sense asked: `says`), each also with the
 * sentence after it: what a theme is mined from, and quoted by.
 */
export function subjectSentences(text: string, subject: ReadonlySet<string>, says: (sentence: string) => boolean = () => true): string[] {
  const spans = sentenceSpans(text);
  const names = spans.map((s) => s.text.trim().length <= MAX_SENTENCE && analyzeTerms(s.text).some((t) => subject.has(t)) && says(s.text) && !namedInList(s.text, subject));
  const out = spans.filter((_, i) => names[i]).map((s) => s.text.trim());
  // A subject sentence and the one after it, verbatim: what the passage says of the subject often goes on there.
  for (let i = 0; i + 1 < spans.length; i++)
    if (names[i] && !names[i + 1] && spans[i + 1]!.end - spans[i]!.start <= MAX_SENTENCE) out.push(text.slice(spans[i]!.start, spans[i + 1]!.end).trim());
  return out;
}

/**
 * The quote a theme shows of one passage: the first of its subject sentences that holds every word of the
 * theme's title (`key`, its stems); null when none does (the passage holds the key's words only across sentences, and is left out).
 * Near-duplicate sources stay cited only where the sentence occurs verbatim.
 */
export function themeSentence(q: Quote, sentences: readonly string[], key: readonly string[], passageText: (sourceId: string) => string | undefined): Quote | null {
  const best = sentences.map((s) => ({ text: s, terms: new Set(analyzeTerms(s)) })).find((s) => key.every((k) => s.terms.has(k)));
  if (!best) return null;
  if (best.text === q.quote) return q;
  const kept = q.citations.map((c, i) => ({ c, d: q.dates[i]! })).filter(({ c }, i) => i === 0 || quoteOccursIn(best.text, passageText(c.sourceId) ?? ''));
  return { ...q, quote: best.text, terms: best.terms, citations: kept.map(({ c }) => ({ ...c, quote: best.text })), dates: kept.map(({ d }) => d) };
}

/** Words an item of a list holds at most ("a cleaner environment", "and the environment"). */
const LIST_ITEM_WORDS = 4;

/**
 * Whether a sentence names the subject only as one item of a list ("schools, health care, a cleaner environment, a
 * stronger defense"): it is about the list, not the subject. The subject's item is short, or runs on into the
 * sentence's verb after two short items ("health care, and the environment have now been before the Congress"), and
 * two short items stand beside it.
 */
function namedInList(sentence: string, subject: ReadonlySet<string>): boolean {
  const items = sentence.split(/[,;]/).map((s) => s.trim().replace(/^(and|or)\s+/i, ''));
  if (items.length < 3) return false;
  const words = (s: string | undefined): number => (s ? s.split(/\s+/).filter(Boolean).length : 0);
  const short = (s: string | undefined): boolean => words(s) > 0 && words(s) <= LIST_ITEM_WORDS;
  const at = items.findIndex((s) => analyzeTerms(s).some((t) => subject.has(t)));
  if (at < 0 || !analyzeTerms(items[at]!.split(/\s+/).slice(0, LIST_ITEM_WORDS).join(' ')).some((t) => subject.has(t))) return false;
  const beside = [items[at - 2], items[at - 1], items[at + 1], items[at + 2]].filter(short).length;
  return beside >= 2 && (short(items[at]) || (short(items[at - 1]) && short(items[at - 2])));
}
