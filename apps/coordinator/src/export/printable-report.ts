import { billOf, counted, describeBill, describeUsage } from '@orrery/engine';
import type { Citation, Report, ReportParagraph } from '@orrery/protocol';

/** A stretch of text and the notes (footnote numbers) that follow it. */
export interface NotedText {
  text: string;
  notes: number[];
}
/** One citation as a footnote: the source it points to, its link (http and https only) and the quote it rests on. */
export interface PrintableNote {
  n: number;
  source: number;
  title: string;
  sourceId: string;
  url?: string;
  quote?: string;
}
export type PrintableBlock = { kind: 'heading'; text: string } | { kind: 'paragraph'; parts: NotedText[] } | { kind: 'item'; text: string };

/**
 * A report laid out for print, whatever the format: headings and paragraphs in order, each citation a footnote of its
 * own (so every quote is kept), the numbered sources (a report that cites nothing heads no notes or sources), and a
 * footer with the engine and the itemised bill. All text is text: each renderer writes it literally (escaped, never
 * parsed), and a link is kept only when it is http or https.
 */
export interface PrintableReport {
  title: string;
  language?: string;
  blocks: PrintableBlock[];
  notes: PrintableNote[];
  sourcesHeading: string;
  sources: { n: number; title: string; id: string; url?: string }[];
  footer: string[];
}

/** The link a printed report may carry: an absolute http(s) URL, else none. */
export function safeLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

// Characters XML 1.0 (DOCX) cannot carry and no format should print: C0 controls but tab and newline, DEL, non-characters, lone surrogates.
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const t = (s: string): string => s.replace(UNPRINTABLE, '');

export function printableReport(report: Report): PrintableReport {
  const sourceNumber = new Map(report.sources.map((s, i) => [s.id, i + 1]));
  const byId = new Map(report.sources.map((s) => [s.id, s]));
  const notes: PrintableNote[] = [];
  const noted = (citations: readonly Citation[]): number[] =>
    citations.map((c) => {
      const s = byId.get(c.sourceId);
      const url = safeLink(s?.url);
      const n = notes.length + 1;
      notes.push({ n, source: sourceNumber.get(c.sourceId) ?? 0, title: t(s?.title ?? c.sourceId), sourceId: t(c.sourceId), ...(url ? { url } : {}), ...(c.quote ? { quote: t(c.quote) } : {}) });
      return n;
    });
  const paragraph = (p: Pick<ReportParagraph, 'text' | 'citations' | 'sentences'>): PrintableBlock => ({
    kind: 'paragraph',
    parts: p.sentences?.length ? p.sentences.map((s) => ({ text: t(s.text), notes: noted(s.citations) })) : [{ text: t(p.text), notes: noted(p.citations) }],
  });
  const h = report.headings;
  const blocks: PrintableBlock[] = [paragraph({ text: report.summary, citations: report.summaryCitations ?? [], ...(report.summarySentences ? { sentences: report.summarySentences } : {}) })];
  for (const section of report.sections) {
    blocks.push({ kind: 'heading', text: t(section.title) });
    for (const p of section.paragraphs) blocks.push(paragraph(p));
  }
  if (report.coverage.subtopics.length) blocks.push({ kind: 'heading', text: t(h?.coverage ?? 'Coverage') });
  for (const s of report.coverage.subtopics) blocks.push({ kind: 'item', text: t(`${s.title}: ${counted(s.evidenceCount, 'finding')}, ${s.status}`) });
  if (report.coverage.gaps.length) {
    blocks.push({ kind: 'heading', text: t(h?.gaps ?? 'Gaps that remain') });
    for (const g of report.coverage.gaps) blocks.push({ kind: 'item', text: t(g) });
  }
  const m = report.metadata;
  return {
    title: t(report.title),
    ...(report.language ? { language: report.language } : {}),
    blocks,
    notes,
    sourcesHeading: t(h?.sources ?? 'Sources'),
    sources: report.sources.map((s, i) => {
      const url = safeLink(s.url);
      return { n: i + 1, title: t(s.title), id: t(s.id), ...(url ? { url } : {}) };
    }),
    footer: [t(`Engine: ${m.engine}${m.corpus ? ` on corpus ${m.corpus}` : ''}; ${counted(m.rounds, 'round')}, ${counted(m.tasks, 'task')}; generated ${m.generatedAt}.`), `Cost ${describeUsage(m.usage)}.`, ...describeBill(billOf(m.usage))],
  };
}

/** A note as one line of text: "Title (id), https://…: “quote”". */
export function noteText(n: PrintableNote): string {
  return `[${n.source}] ${n.title} (${n.sourceId})${n.url ? `, ${n.url}` : ''}${n.quote ? `: “${n.quote}”` : ''}`;
}
