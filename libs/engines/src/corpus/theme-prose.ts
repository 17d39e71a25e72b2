import type { Citation, ReportSection } from '@orrery/protocol';
import { citedFigures, concentrationSentence, countSentence } from './report-figures';
import { DENSE_SHARE, listAnd, paragraph, paragraphsOf, type ProseContext, type Quote, type ReportProse, specificityOf } from './report-prose';
import { subjectStems, type Theme, themesOf } from './themes';

/** Quotes one theme shows at most: a few that are about it, not all that match. */
export const PER_THEME = 5;
/** A section's opener names its speakers up to this many, then counts the rest. */
const NAMED_SPEAKERS = 3;

/**
 * A report of dated quotes organised by theme: the evidence grouped by the phrases its quotes share
 * (`themesOf`), a few quotes per theme within the citation budget (the most relevant, shown in time order),
 * themes in the order of their median year, each section opened by who spoke, when and how often; the lede
 * names the themes in their order in time, then the counts of what is cited. Null when the evidence holds
 * fewer than two themes (the caller writes its sections as before).
 */
export function themedReport(pool: readonly Quote[], subject: string, budget: number, sourceTitles: ReadonlyMap<string, string>, ctx: ProseContext, yearOf: (q: Quote) => number): ReportProse | null {
  const themes = themesOf(pool, { subject: subjectStems(subject), specificity: specificityOf(ctx), yearOf });
  if (themes.length < 2) return null;
  const picked = withinBudget(themes, budget);
  const median = (qs: readonly Quote[]): number => yearOf([...qs].sort((a, b) => yearOf(a) - yearOf(b))[Math.floor((qs.length - 1) / 2)]!);
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

/** Each theme's most relevant quotes, at most PER_THEME, taken round-robin over themes until `budget` sources are cited. */
function withinBudget(themes: readonly Theme<Quote>[], budget: number): Quote[][] {
  const queues = themes.map((t) => [...t.quotes].sort((a, b) => b.relevance - a.relevance));
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
    const first = s.split(' ')[0]!;
    return /^\p{Lu}\p{Ll}+$/u.test(first) && !ctx.isName(first) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
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
