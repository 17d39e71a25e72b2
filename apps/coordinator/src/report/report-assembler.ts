import { counted, emptyUsage } from '@orrery/engine';
import { type Citation, type Finding, quoteOccursIn, type Report, type ReportParagraph, type ReportSection, type ReportSentence, type Run, type Source, type SynthesizeResult } from '@orrery/protocol';
import { subtopicCoverage } from '../coverage/subtopic-coverage';

/** A citation stands only if its source is in the ledger and its quote occurs in that source. */
export function citationHolds(ledger: Map<string, Source>, sourceId: string, quote?: string): boolean {
  const source = ledger.get(sourceId);
  if (!source) return false;
  return quote === undefined || quoteOccursIn(quote, source.text);
}

/** When the writer failed, the report is still produced from the ledger's findings: nothing is lost. */
export function fallbackSections(run: Run, findings: Finding[], maxCitations: number): SynthesizeResult {
  const cited = new Set<string>();
  const sections: ReportSection[] = [];
  for (const s of run.plan?.subtopics ?? []) {
    const paragraphs = findings
      .filter((f) => f.subtopicId === s.id)
      .filter((f) => cited.has(f.sourceId) || cited.size < maxCitations)
      .map((f) => {
        cited.add(f.sourceId);
        return { text: f.claim, citations: [{ sourceId: f.sourceId, quote: f.quote }] };
      });
    if (paragraphs.length) sections.push({ title: s.title, subtopicId: s.id, paragraphs });
  }
  return {
    kind: 'synthesize',
    taskId: 'fallback',
    title: run.topic,
    summary: `Findings on "${run.topic}" gathered from ${counted(cited.size, 'source')}.`,
    sections,
    usage: emptyUsage(),
    stats: {},
  };
}

/**
 * A straightforward question's report, from its one search, with no writer: the first finding's claim is the
 * answer and leads the report citing the passage that shows it; the rest are the evidence behind it.
 */
export function directAnswer(run: Run, findings: Finding[], maxCitations: number): SynthesizeResult {
  // The ledger returns findings in id order; the search's own ranking says which one answers.
  const [lead, ...rest] = [...findings].sort((a, b) => (b.relevance?.score ?? 0) - (a.relevance?.score ?? 0) || a.id.localeCompare(b.id));
  const cited = new Set(lead ? [lead.sourceId] : []);
  // With nothing else found, the evidence is the answer's own passage, quoted.
  const evidence = rest.length ? rest : lead ? [{ ...lead, claim: lead.quote }] : [];
  const paragraphs = evidence
    .filter((f) => cited.has(f.sourceId) || cited.size < maxCitations)
    .map((f) => {
      cited.add(f.sourceId);
      return { text: f.claim, citations: [{ sourceId: f.sourceId, quote: f.quote }] };
    });
  return {
    kind: 'synthesize',
    taskId: 'direct',
    title: run.topic,
    summary: lead ? lead.claim : `No evidence was found for "${run.topic}".`,
    ...(lead ? { summaryCitations: [{ sourceId: lead.sourceId, quote: lead.quote }] } : {}),
    sections: paragraphs.length ? [{ title: 'Evidence', ...(lead ? { subtopicId: lead.subtopicId } : {}), paragraphs }] : [],
    usage: emptyUsage(),
    stats: {},
  };
}

/** A report the lead wrote and a citer cited sentence by sentence. */
export const isLeadWritten = (w: SynthesizeResult): boolean => w.summarySentences !== undefined || w.sections.some((s) => s.paragraphs.some((p) => p.sentences !== undefined));

/** Whether a draft keeps a paragraph whose citation is a finding of the ledger, its quote in the source. */
export function keepsCitedParagraph(w: SynthesizeResult, findings: readonly Finding[], sources: readonly Source[]): boolean {
  const ledger = new Map(sources.map((s) => [s.id, s]));
  const backed = new Set(findings.map((f) => f.sourceId));
  return w.sections.some((s) => s.paragraphs.some((p) => p.citations.some((c) => backed.has(c.sourceId) && citationHolds(ledger, c.sourceId, c.quote))));
}

/** A sentence's citations that check out, and how many did not. */
function checkedSentences(ledger: Map<string, Source>, sentences: readonly ReportSentence[]): { sentences: ReportSentence[]; dropped: number } {
  let dropped = 0;
  const out = sentences.map((s) => {
    const citations = s.citations.filter((c) => citationHolds(ledger, c.sourceId, c.quote));
    dropped += s.citations.length - citations.length;
    return { text: s.text, citations };
  });
  return { sentences: out, dropped };
}

/** The distinct citations of some sentences, in order. */
function unionOf(sentences: readonly ReportSentence[]): Citation[] {
  const seen = new Set<string>();
  return sentences.flatMap((s) => s.citations).filter((c) => {
    const k = `${c.sourceId}\u0000${c.quote ?? ''}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/**
 * Checks every citation against the ledger and adds sources, coverage and metadata. A paragraph stands when it cites;
 * one cited sentence by sentence that cites nothing is the lead's analysis, and stands beside a cited paragraph of its
 * section. A section with no cited paragraph goes.
 */
export function assembleReport(run: Run, written: SynthesizeResult, ledgerSources: Source[]): Report {
  const ledger = new Map(ledgerSources.map((s) => [s.id, s]));
  let dropped = 0;
  // The summary's citations come first: they are read first, so they are numbered first.
  let summarySentences: ReportSentence[] | undefined;
  let summaryCitations: Citation[];
  if (written.summarySentences) {
    const checked = checkedSentences(ledger, written.summarySentences);
    dropped += checked.dropped;
    summarySentences = checked.sentences;
    summaryCitations = unionOf(summarySentences);
  } else {
    summaryCitations = (written.summaryCitations ?? []).filter((c) => citationHolds(ledger, c.sourceId, c.quote));
    dropped += (written.summaryCitations?.length ?? 0) - summaryCitations.length;
  }
  const cited = new Set<string>(summaryCitations.map((c) => c.sourceId));
  const sections = written.sections
    .map((section) => {
      const paragraphs = section.paragraphs.map((p): ReportParagraph => {
        if (p.sentences) {
          const checked = checkedSentences(ledger, p.sentences);
          dropped += checked.dropped;
          return { text: p.text, citations: unionOf(checked.sentences), sentences: checked.sentences };
        }
        const citations = p.citations.filter((c) => citationHolds(ledger, c.sourceId, c.quote));
        dropped += p.citations.length - citations.length;
        return { ...p, citations };
      });
      const anyCited = paragraphs.some((p) => p.citations.length > 0);
      return { ...section, paragraphs: paragraphs.filter((p) => p.citations.length > 0 || (anyCited && p.sentences !== undefined)) };
    })
    .filter((s) => s.paragraphs.some((p) => p.citations.length > 0));
  for (const s of sections) for (const p of s.paragraphs) for (const c of p.citations) cited.add(c.sourceId);

  // A report that says the sources do not answer has no coverage to show: what its subtopics found answers nothing.
  const subtopics = written.unanswered ? [] : subtopicCoverage(run.plan, run.evidence);
  const gaps = subtopics.filter((s) => s.status !== 'covered').map((s) => `${s.title} (${s.status}: ${counted(s.evidenceCount, 'finding')})`);
  return {
    runId: run.id,
    title: written.title,
    topic: run.topic,
    summary: written.summary,
    ...(summaryCitations.length ? { summaryCitations } : {}),
    ...(summarySentences ? { summarySentences } : {}),
    ...(written.language ? { language: written.language } : {}),
    ...(written.headings ? { headings: written.headings } : {}),
    sections,
    sources: [...cited].map((id) => {
      const s = ledger.get(id)!;
      return { id, title: s.title, ...(s.url ? { url: s.url } : {}) };
    }),
    coverage: { subtopics, gaps },
    metadata: {
      engine: run.engine,
      ...(run.corpus ? { corpus: run.corpus } : {}),
      rounds: run.rounds.length,
      tasks: run.counters.tasksDispatched,
      usage: run.usage,
      generatedAt: new Date().toISOString(),
      droppedCitations: dropped,
    },
  };
}
