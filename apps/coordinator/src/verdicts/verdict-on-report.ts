import type { Finding, Source, SynthesizeResult } from '@orrery/protocol';
import { citationHolds, isLeadWritten } from '../report/report-assembler';
import { CORRECTION_MAX_CHARS } from './verdict-thresholds';
import { clipText } from '@orrery/protocol';

/** The writer's draft: pass; retry once with the correction; then discard to a findings-only report. */
export interface ReportVerdict {
  verdict: 'pass' | 'retry' | 'discard';
  issues: string[];
  /** On retry: what the re-sent writer task is told (context.correction). */
  correction?: string;
}

/** Writer attempts allowed: the first draft and one corrected draft. */
export const WRITER_RETRIES = 1;

/**
 * The check on the writer's draft against the run's ledger:
 * - every paragraph cites at least one finding (a ledger source a finding quotes, the quote found in it);
 * - the summary's claims are backed by the findings they name (each summary citation is such a source);
 * - no citation points outside the ledger.
 */
export function verdictOnReport(written: SynthesizeResult, ledger: { findings: readonly Finding[]; sources: readonly Source[] }, attempt: number): ReportVerdict {
  const sources = new Map(ledger.sources.map((s) => [s.id, s]));
  const findingSources = new Set(ledger.findings.map((f) => f.sourceId));
  const issues: string[] = [];
  const backs = (c: { sourceId: string; quote?: string }) => findingSources.has(c.sourceId) && citationHolds(sources, c.sourceId, c.quote);
  for (const [i, c] of (written.summaryCitations ?? []).entries()) {
    if (!sources.has(c.sourceId)) issues.push(`summary citation ${i + 1}: source "${c.sourceId}" is not in the ledger`);
    else if (!backs(c)) issues.push(`summary citation ${i + 1}: no finding backs it (source "${c.sourceId}"${c.quote ? ', quote not in the source' : ''})`);
  }
  written.sections.forEach((s, si) => {
    // A lead's report is cited sentence by sentence: a paragraph of its own analysis cites nothing, and stands
    // beside a paragraph of its section that cites a finding.
    const analysed = s.paragraphs.some((p) => p.sentences !== undefined) && s.paragraphs.some((p) => p.citations.some(backs));
    s.paragraphs.forEach((p, pi) => {
      const where = `section ${si + 1} ("${clipText(s.title, 60)}"), paragraph ${pi + 1}`;
      for (const c of p.citations) if (!sources.has(c.sourceId)) issues.push(`${where}: cites "${c.sourceId}", which is not in the ledger`);
      if (!p.citations.some(backs) && !(analysed && p.citations.length === 0)) issues.push(`${where}: cites no finding`);
    });
  });
  if (written.summarySentences && ledger.findings.length > 0 && !(written.summaryCitations ?? []).some(backs)) issues.push('the summary cites no finding');
  if (ledger.findings.length > 0 && !written.unanswered && written.sections.every((s) => s.paragraphs.length === 0)) issues.push('the report has no paragraph, though the run has findings');
  if (issues.length === 0) return { verdict: 'pass', issues };
  if (attempt >= WRITER_RETRIES) return { verdict: 'discard', issues };
  // A lead's report is cited afterwards, from its sentences: it is told to write what a finding can back, not to cite.
  const ask = isLeadWritten(written)
    ? 'Write only what the findings support, in the summary and in every section, each factual claim in a sentence of its own close to the wording of the finding it rests on, so that it can be cited.'
    : 'Cite in every paragraph, and in the summary, only the sources of the findings given, with quotes copied from them.';
  const correction = `Your draft failed the citation check: ${issues.slice(0, 8).join('; ')}. ${ask}`;
  return { verdict: 'retry', issues, correction: correction.slice(0, CORRECTION_MAX_CHARS) };
}
