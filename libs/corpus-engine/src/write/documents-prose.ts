import type { Citation, Finding, ReportSection } from '@orrery/protocol';
import { centralQuotes } from './central-findings';
import { citedFigures, countSentence } from './report-figures';
import { listAnd, type ProseContext } from './report-prose';
import { analyzeTerms } from '@orrery/language';

/** A passage is cited whole (its code blocks with it) up to this length; a longer one by the quoted sentence. */
export const WHOLE_PASSAGE_MAX = 3000;
/** Central findings the lede quotes. */
const LEDE_FINDINGS = 3;

/** A passage id of a file ingested from a folder: "<path>#<n>". */
const FILE_PASSAGE = /^(.+\.(?:md|markdown|mdx|txt|html?|rst))#\d+$/i;

/** Whether sources are passages of files (a folder of documents), which a report groups by file and heading. */
export function fileSources(ids: readonly string[]): boolean {
  return ids.length > 0 && ids.every((id) => FILE_PASSAGE.test(id));
}

/** A source's document and heading: the title "file > heading" when ingest gave one, else the file and the title. */
export function documentAndHeading(id: string, title: string | undefined): { document: string; heading: string | null } {
  const t = (title ?? '').trim();
  const parts = t.split(/\s+>\s+/);
  if (parts.length >= 2) return { document: parts[0]!, heading: parts.slice(1).join(' > ') };
  const file = FILE_PASSAGE.exec(id)?.[1] ?? id;
  return { document: file, heading: t && t !== file ? t : null };
}

/** Where a passage of a file is: "pg-pool/README.md (events > error)". */
export function sourcePlace(id: string, title: string | undefined): string {
  const { document, heading } = documentAndHeading(id, title);
  return heading ? `${document} (${heading})` : document;
}

/**
 * What the documents say, from findings given best first: a section per document (the one holding the first
 * passage first), its best passage first and the others in the document's order, a paragraph per heading, each
 * passage cited whole (code blocks kept as the source writes them, so a renderer shows them as code), and a
 * lede that quotes the passage that answers (the first) and the most central others, then counts what is cited.
 */
export function documentsReport(
  findings: readonly Finding[],
  sourceText: ReadonlyMap<string, string>,
  sourceTitles: ReadonlyMap<string, string>,
  ctx: ProseContext,
): { summary: string; summaryCitations: Citation[]; sections: ReportSection[] } {
  const byDoc = new Map<string, { id: string; heading: string | null; finding: Finding }[]>();
  const seen = new Set<string>();
  // A passage another document holds word for word (packages that ship one README) is cited once, beside its first copy.
  const firstWithText = new Map<string, string>();
  const copies = new Map<string, string[]>();
  for (const f of findings) {
    if (seen.has(f.sourceId)) continue;
    seen.add(f.sourceId);
    const same = (sourceText.get(f.sourceId) ?? f.quote).replace(/\s+/g, ' ').trim();
    const first = firstWithText.get(same);
    if (first !== undefined) {
      copies.set(first, [...(copies.get(first) ?? []), f.sourceId]);
      continue;
    }
    firstWithText.set(same, f.sourceId);
    const { document, heading } = documentAndHeading(f.sourceId, sourceTitles.get(f.sourceId));
    byDoc.set(document, [...(byDoc.get(document) ?? []), { id: f.sourceId, heading, finding: f }]);
  }
  const alsoIn = (id: string): string => {
    const others = (copies.get(id) ?? []).map((c) => documentAndHeading(c, sourceTitles.get(c)).document);
    return others.length ? ` (the same in ${listAnd(others)})` : '';
  };
  const order = (id: string): number => Number(/#(\d+)$/.exec(id)?.[1] ?? 0);
  // Findings come best first: a document's first is its top passage, and documents go in that order.
  const sections: ReportSection[] = [...byDoc.entries()]
    .map(([document, passages]) => ({
      title: document,
      paragraphs: [passages[0]!, ...passages.slice(1).sort((a, b) => order(a.id) - order(b.id))]
        .map(({ id, heading, finding }) => {
          const text = sourceText.get(id) ?? finding.quote;
          const whole = text.trim().length <= WHOLE_PASSAGE_MAX ? text.trim() : finding.quote;
          const place = `${heading ?? ''}${alsoIn(id)}`.trim();
          return { text: place ? `${place}: ${whole}` : whole, citations: [id, ...(copies.get(id) ?? [])].map((sourceId) => ({ sourceId, quote: whole })) };
        }),
    }));
  const copied = new Set([...copies.values()].flat());
  const quotes = findings
    .filter((f, i) => findings.findIndex((g) => g.sourceId === f.sourceId) === i && !copied.has(f.sourceId))
    .map((f) => ({ quote: f.quote, terms: new Set(analyzeTerms(f.quote)), citations: [{ sourceId: f.sourceId, quote: f.quote }], relevance: f.relevance?.score ?? 0 }));
  const answer = quotes[0];
  const central = answer ? [answer, ...centralQuotes(quotes.filter((q) => q !== answer), LEDE_FINDINGS - 1)] : [];
  const figures = citedFigures(
    [...seen],
    (id) => sourceTitles.get(id),
  );
  const from = (id: string): string => sourcePlace(id, sourceTitles.get(id));
  const said = central.map((q) => `${from(q.citations[0]!.sourceId)}: “${q.quote}”`);
  const summary = [`The documents say: ${said.join(' ')}`, countSentence(figures, ctx.vocabulary)].filter(Boolean).join(' ');
  return { summary, summaryCitations: central.map((q) => q.citations[0]!), sections };
}
