import { billOf, counted, describeBill, describeUsage } from '@orrery/engine';
import type { Report } from '@orrery/protocol';
import { mdParagraph, mdText, mdUrl } from './markdown-escape';
import { mdSentences } from './markdown-sanitise';

/**
 * The report as Markdown: numbered citations, a sources list, and the coverage it reached. A lead's report, cited
 * sentence by sentence, keeps its tables, lists and emphasis (made inert by `mdSentences`) and its citation marks
 * after each sentence, under headings in its own language; any other text is escaped and quoted code fenced.
 */
export function reportToMarkdown(report: Report): string {
  const number = new Map(report.sources.map((s, i) => [s.id, i + 1]));
  const refs = (citations: readonly { sourceId: string }[]): string => {
    const ns = [...new Set(citations.map((c) => number.get(c.sourceId)))].map((n) => `[${n}]`).join('');
    return ns ? ` ${ns}` : '';
  };
  // After a closing code fence the references start a line of their own: on the fence's line they would reopen it.
  const cited = (body: string, citations: readonly { sourceId: string }[]): string => {
    const r = refs(citations);
    return /`{3,}$/.test(body) && r ? `${body}\n\n${r.trim()}` : `${body}${r}`;
  };
  // Sentence by sentence where the citations are; the whole text with its citations after it where that fails.
  const prose = (text: string, citations: readonly { sourceId: string }[], sentences?: readonly { text: string; citations: readonly { sourceId: string }[] }[]): string =>
    (sentences && mdSentences(sentences.map((s) => ({ text: s.text, refs: refs(s.citations).trim() })))) || cited(mdParagraph(text), citations);
  const h = report.headings;
  const out: string[] = [`# ${mdText(report.title)}`, '', prose(report.summary, report.summaryCitations ?? [], report.summarySentences), ''];
  for (const section of report.sections) {
    out.push(`## ${mdText(section.title)}`, '');
    for (const p of section.paragraphs) out.push(prose(p.text, p.citations, p.sentences), '');
  }
  if (report.coverage.subtopics.length) {
    out.push(`## ${h ? mdText(h.coverage) : 'Coverage'}`, '', '| subtopic | evidence | status |', '| --- | --- | --- |');
    for (const s of report.coverage.subtopics) out.push(`| ${mdText(s.title)} | ${s.evidenceCount} | ${s.status} |`);
    out.push('');
  }
  if (report.coverage.gaps.length) out.push(`${h ? mdText(h.gaps) : 'Gaps that remain'}:`, '', ...report.coverage.gaps.map((g) => `- ${mdText(g)}`), '');
  // A report that cites nothing (its sources do not answer) has no sources list to head.
  if (report.sources.length) out.push(`## ${h ? mdText(h.sources) : 'Sources'}`, '');
  report.sources.forEach((s, i) => out.push(`${i + 1}. ${mdText(s.title)} (${mdText(s.id)})${s.url ? ` ${mdUrl(s.url)}` : ''}`));
  const m = report.metadata;
  out.push('', `_Engine: ${m.engine}${m.corpus ? ` on corpus ${mdText(m.corpus)}` : ''}; ${counted(m.rounds, 'round')}, ${counted(m.tasks, 'task')}; cost ${describeUsage(m.usage)}._`, '');
  // The itemised bill: each line a list item of its own, escaped (model names come from configuration).
  out.push(...describeBill(billOf(m.usage)).map((l) => `- ${mdText(l)}`), '');
  return out.join('\n');
}
