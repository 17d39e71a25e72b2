import { describeUsage } from '@orrery/engines';
import type { Report } from '@orrery/protocol';
import { mdParagraph, mdText, mdUrl } from './markdown-escape';

/** The report as Markdown: numbered citations, a sources list, and the coverage it reached. Every text is escaped; quoted code is fenced. */
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
  const out: string[] = [`# ${mdText(report.title)}`, '', cited(mdParagraph(report.summary), report.summaryCitations ?? []), ''];
  for (const section of report.sections) {
    out.push(`## ${mdText(section.title)}`, '');
    for (const p of section.paragraphs) out.push(cited(mdParagraph(p.text), p.citations), '');
  }
  out.push('## Coverage', '', '| subtopic | evidence | status |', '| --- | --- | --- |');
  for (const s of report.coverage.subtopics) out.push(`| ${mdText(s.title)} | ${s.evidenceCount} | ${s.status} |`);
  out.push('');
  if (report.coverage.gaps.length) out.push('Gaps that remain:', '', ...report.coverage.gaps.map((g) => `- ${mdText(g)}`), '');
  out.push('## Sources', '');
  report.sources.forEach((s, i) => out.push(`${i + 1}. ${mdText(s.title)} (${mdText(s.id)})${s.url ? ` ${mdUrl(s.url)}` : ''}`));
  const m = report.metadata;
  out.push('', `_Engine: ${m.engine}${m.corpus ? ` on corpus ${mdText(m.corpus)}` : ''}; ${m.rounds} rounds, ${m.tasks} tasks; cost ${describeUsage(m.usage)}._`, '');
  return out.join('\n');
}
