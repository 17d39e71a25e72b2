import { describeUsage } from '@orrery/engines';
import type { Report } from '@orrery/protocol';
import { mdText, mdTextWithCode, mdUrl } from './markdown-escape';

/** The report as Markdown: numbered citations, a sources list, and the coverage it reached. Every text is escaped; code a passage holds is a code block. */
export function reportToMarkdown(report: Report): string {
  const number = new Map(report.sources.map((s, i) => [s.id, i + 1]));
  const refs = (citations: readonly { sourceId: string }[]): string => {
    const ns = [...new Set(citations.map((c) => number.get(c.sourceId)))].map((n) => `[${n}]`).join('');
    return ns ? ` ${ns}` : '';
  };
  const out: string[] = [`# ${mdText(report.title)}`, '', `${mdText(report.summary)}${refs(report.summaryCitations ?? [])}`, ''];
  for (const section of report.sections) {
    out.push(`## ${mdText(section.title)}`, '');
    for (const p of section.paragraphs) out.push(`${mdTextWithCode(p.text)}${refs(p.citations)}`, '');
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
