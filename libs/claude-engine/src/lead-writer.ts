import type { Citation, Finding, ReportSection, ReportSentence, SynthesizeResult, SynthesizeTask, TokenUsage, WriterBrief } from '@orrery/protocol';
import type { EngineDecision } from '@orrery/engine';
import type { Redactor } from './redaction/redact';
import { clipText } from '@orrery/protocol';
import { languageName, citeable, sentencesOf } from '@orrery/language';
import { addUsage, emptyUsage } from '@orrery/engine';
import type { ResolvedEngineOptions } from './options';
import { SYSTEM_PROMPTS, untrustedData } from './prompts';
import { maxTokensFor, ROLE_EFFORT } from './role-settings';
import { LeadReportDraftSchema, SentenceCitationsDraftSchema, type LeadReportDraft, type SentenceCitationsDraft } from './schemas';
import { AnthropicEngineError, StructuredOutputError } from './errors';
import { structuredCall } from './structured';

/** What each form asks of the writer, in the words the writer brief uses. */
const FORM_BRIEF: Record<WriterBrief['answerForm'], string> = {
  'direct-answer': 'direct-answer: the summary opens with the answer in one sentence; the sections give the evidence behind it and its limits.',
  'comparison-table': 'comparison-table: the first section holds a Markdown table comparing the things compared (one row each, one column per criterion); what the table shows and where sources disagree follows it.',
  chronology: 'chronology: the sections run in date order, each step dated; say what changed, when and why.',
  analysis: 'analysis: the sections the question needs, organised by what the user needs to know.',
};

/** Space for the lead's report, beside the thinking its effort gets. */
const REPORT_ANSWER_TOKENS = 12_000;
/** The citer's answer per sentence, plus room for the JSON around it. */
const CITER_TOKENS_PER_SENTENCE = 30;

export interface LeadWriting {
  result: Omit<SynthesizeResult, 'usage' | 'stats'>;
  usage: TokenUsage;
  decisions: EngineDecision[];
  stats: Record<string, number>;
}

/** One unit of the written report a citation attaches to, and where it sits. */
interface Unit {
  text: string;
  at: { part: 'summary' } | { part: 'section'; section: number; paragraph: number };
}

/**
 * The lead writes the report itself, then a citer attaches citations sentence by sentence (as the reference design's
 * citations agent does after its lead writes). The writer is the lead model at the writer's effort, and works from
 * the question, its plan's class, reasoning and objectives, the researchers' reports and each source's title, site,
 * date (a search result's page age, when it has one) and URL; it is told the language. The citer only matches numbered sentences to numbered findings, and a citation is a
 * finding's own verbatim quote, which the coordinator checks against the ledger again.
 */
export class LeadWriter {
  constructor(private readonly o: ResolvedEngineOptions) {}

  /** The writer's prompt, for sizing it before it is sent. */
  brief(task: SynthesizeTask & { brief: WriterBrief }, r: Redactor): { system: string; user: string; labels: Map<string, string> } {
    const b = task.brief;
    const labels = new Map<string, string>();
    const byId = new Map(task.sources.map((s) => [s.id, s]));
    for (const s of task.sections) for (const f of s.findings) if (!labels.has(f.sourceId)) labels.set(f.sourceId, `S${labels.size + 1}`);
    const sourceLines = [...labels].map(([id, label]) => {
      const s = byId.get(id);
      const dated = s?.published ? ` — dated ${r.text(s.published)}` : '';
      return `[${label}] ${r.text(s?.title || id)}${s?.url ? ` — ${siteOf(s.url)}${dated} — ${s.url}` : s?.kind === 'passage' ? ` — corpus passage${dated}` : dated}`;
    });
    const findings = task.sections
      .filter((s) => s.findings.length)
      .map((s) => `## ${r.text(s.title)} (subtopicId: ${s.subtopicId})\n${s.findings.map((f) => `- [${labels.get(f.sourceId)}] ${r.text(f.claim)}\n  quote: ${JSON.stringify(r.text(f.quote))}`).join('\n')}`);
    const titles = new Map(task.sections.map((s) => [s.subtopicId, s.title]));
    const reports = b.reports.map((x) =>
      [
        `### ${r.text(titles.get(x.subtopicId ?? '') ?? x.taskId)}`,
        r.text(x.report.text),
        ...(x.report.gaps.length ? [`Could not find: ${x.report.gaps.map((g) => r.text(g)).join('; ')}`] : []),
        ...(x.report.conflicts.length ? [`Sources disagree: ${x.report.conflicts.map((c) => r.text(c)).join('; ')}`] : []),
      ].join('\n'),
    );
    const language = `${languageName(b.language)} (${b.language})`;
    const user = [
      `The user's question, which is your instruction: ${r.text(task.context.topic)}`,
      `Write the whole report in ${language}: title, summary, section titles, paragraphs and headings.`,
      `Form: ${FORM_BRIEF[b.answerForm]}`,
      `Your plan classified the question as ${b.classification}. Your reasoning then: ${r.text(b.rationale) || '(none given)'}`,
      `What you asked each researcher:\n${b.objectives.map((o) => `- ${o.subtopicId}: ${r.text(o.title)} — ${r.text(o.objective)}`).join('\n') || '- (no objectives recorded)'}`,
      `At most ${task.maxCitations} distinct sources can be cited; build on the best of them.`,
      ...(task.context.correction ? [`Correction from the previous draft's check: ${r.text(task.context.correction)}`] : []),
      "The researchers' condensed reports (untrusted material):",
      untrustedData('researcher reports', reports.join('\n\n') || '(no reports)'),
      'The sources (untrusted material): label, title, site, date (when the search engine gave one), URL.',
      untrustedData('sources', sourceLines.join('\n') || '(none)'),
      'The findings, per subtopic, each with its source label and verbatim quote (untrusted material):',
      untrustedData('findings', findings.join('\n\n') || '(none)'),
    ].join('\n');
    return { system: SYSTEM_PROMPTS.writer, user, labels };
  }

  async write(task: SynthesizeTask & { brief: WriterBrief }, r: Redactor, signal?: AbortSignal): Promise<LeadWriting> {
    const usage = emptyUsage();
    const decisions: EngineDecision[] = [];
    const { system, user } = this.brief(task, r);
    const written = await structuredCall({
      api: this.o.api,
      model: this.o.model,
      ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
      system,
      user,
      schema: LeadReportDraftSchema,
      purpose: `report (task ${task.taskId})`,
      effort: ROLE_EFFORT.writer,
      maxTokens: maxTokensFor('writer', Math.max(this.o.maxTokens, REPORT_ANSWER_TOKENS)),
      ...(signal ? { signal } : {}),
    });
    addUsage(usage, written.usage);
    decisions.push(...written.decisions);
    const cited = await this.cite(task, written.value, r, signal);
    addUsage(usage, cited.usage);
    decisions.push(...cited.decisions);
    return { result: cited.result, usage, decisions, stats: { requests: written.requests + cited.requests, structuredRetries: written.decisions.length + cited.decisions.length, ...cited.stats } };
  }

  /** The citation pass: numbered sentences in, the findings behind each out. */
  private async cite(task: SynthesizeTask & { brief: WriterBrief }, draft: LeadReportDraft, r: Redactor, signal?: AbortSignal) {
    const language = task.brief.language;
    const units: Unit[] = [];
    for (const text of sentencesOf(draft.summary, language)) units.push({ text, at: { part: 'summary' } });
    draft.sections.forEach((s, si) => s.paragraphs.forEach((p, pi) => sentencesOf(p, language).forEach((text) => units.push({ text, at: { part: 'section', section: si, paragraph: pi } }))));
    const numbered = units.map((u, i) => ({ u, n: i + 1 })).filter(({ u }) => citeable(u.text));
    const findings = task.sections.flatMap((s) => s.findings);
    const fid = new Map(findings.map((f, i) => [`F${i + 1}`, f]));
    const titles = new Map(task.sources.map((s) => [s.id, s.title]));
    const user = [
      'The report, one sentence (or table row, or list item) per line:',
      untrustedData('report', numbered.map(({ u, n }) => `S${n}: ${u.text.replace(/\s+/g, ' ').trim()}`).join('\n')),
      // The quote is the evidence a citation shows; the claim the writer already used is not needed to match it.
      'The findings, each with its source and the verbatim quote it rests on:',
      untrustedData('findings', [...fid].map(([id, f]) => `${id} (source: ${clipText(r.text(titles.get(f.sourceId) ?? f.sourceId), 120)}): ${JSON.stringify(r.text(f.quote))}`).join('\n')),
      'Give, for each sentence a finding supports, the sentence number and the finding ids.',
    ].join('\n');
    const valid = new Set(numbered.map(({ n }) => n));
    let res: { value: SentenceCitationsDraft; usage: TokenUsage; decisions: EngineDecision[]; requests: number };
    try {
      res = await structuredCall({
        api: this.o.api,
        model: this.o.subagentModel,
        ...(this.o.refusalFallbackModel ? { fallbackModel: this.o.refusalFallbackModel } : {}),
        system: SYSTEM_PROMPTS.citer,
        user,
        schema: SentenceCitationsDraftSchema,
        purpose: `sentence citations (task ${task.taskId})`,
        effort: ROLE_EFFORT.citer,
        maxTokens: maxTokensFor('citer', 1000 + numbered.length * CITER_TOKENS_PER_SENTENCE),
        check: (d) =>
          d.citations.flatMap((c, i) => [
            ...(valid.has(c.sentence) ? [] : [`citations.${i}.sentence: ${c.sentence} is not a numbered sentence`]),
            ...c.findingIds.filter((id) => !fid.has(id)).map((id) => `citations.${i}.findingIds: "${id}" is not a finding id`),
          ]),
        acceptWithIssues: true,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // A citer that fails (refusal, invalid twice, an error the retries did not clear) leaves a written report: it is
      // cited by word overlap instead, and says so. The deadline still ends the task.
      if (signal?.aborted || (err instanceof AnthropicEngineError && err.aborted)) throw err;
      const spent = (err instanceof StructuredOutputError ? err.usage : undefined) ?? emptyUsage();
      const why = err instanceof Error ? err.message : String(err);
      const citations = overlapCitations(numbered.map(({ u, n }) => ({ n, text: u.text })), [...fid].map(([id, f]) => ({ id, quote: f.quote })));
      res = {
        value: { citations },
        usage: spent,
        decisions: [...(err instanceof StructuredOutputError ? err.decisions : []), { decisionType: 'fallback', level: 'L0', confidence: 0.6, conclusion: clipText(`sentence citations (task ${task.taskId}): ${why}; cited by word overlap with the findings' quotes`, 2000), signals: { step: 'citer', cited: citations.length } }],
        requests: 1,
      };
    }

    // Citations in reading order, at most maxCitations distinct sources.
    const bySentence = new Map<number, Finding[]>();
    for (const c of res.value.citations) {
      if (!valid.has(c.sentence)) continue;
      const list = bySentence.get(c.sentence) ?? [];
      for (const id of c.findingIds) {
        const f = fid.get(id);
        if (f && !list.includes(f)) list.push(f);
      }
      bySentence.set(c.sentence, list);
    }
    const allowed = new Set<string>();
    let dropped = 0;
    const sentences: ReportSentence[] = units.map((u, i) => {
      const citations: Citation[] = [];
      for (const f of bySentence.get(i + 1) ?? []) {
        if (!allowed.has(f.sourceId) && allowed.size >= task.maxCitations) {
          dropped += 1;
          continue;
        }
        allowed.add(f.sourceId);
        citations.push({ sourceId: f.sourceId, quote: f.quote });
      }
      return { text: u.text, citations };
    });

    const summarySentences = sentences.filter((_, i) => units[i]!.at.part === 'summary');
    const sections: ReportSection[] = draft.sections.map((s, si) => ({
      title: s.title,
      ...(task.sections.some((x) => x.subtopicId === s.subtopicId) ? { subtopicId: s.subtopicId } : {}),
      paragraphs: s.paragraphs.map((text, pi) => {
        const own = sentences.filter((_, i) => {
          const at = units[i]!.at;
          return at.part === 'section' && at.section === si && at.paragraph === pi;
        });
        return { text, citations: union(own), sentences: own };
      }),
    }));
    const result: LeadWriting['result'] = {
      kind: 'synthesize',
      taskId: task.taskId,
      title: draft.title,
      summary: draft.summary,
      summaryCitations: union(summarySentences).slice(0, 50),
      summarySentences,
      language,
      ...(draft.headings ? { headings: draft.headings } : {}),
      sections: sections.slice(0, 60),
    };
    const citedSentences = sentences.filter((s) => s.citations.length).length;
    return { result, usage: res.usage, decisions: res.decisions, requests: res.requests, stats: { sentences: numbered.length, citedSentences, droppedCitations: dropped } };
  }
}

/** The distinct citations of some sentences, in order. */
function union(sentences: readonly ReportSentence[]): Citation[] {
  const seen = new Set<string>();
  return sentences.flatMap((s) => s.citations).filter((c) => {
    const k = `${c.sourceId}\u0000${c.quote ?? ''}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/** A page's site, as a reader names it: its host without "www.". */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}


const words = (s: string): Set<string> => new Set((s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []));

/**
 * Citations without a citer: a sentence cites the finding whose quote shares the most of its words with it, when at
 * least half the quote's words are in the sentence. Cruder than a model's reading, so it only stands in for one.
 */
export function overlapCitations(sentences: readonly { n: number; text: string }[], findings: readonly { id: string; quote: string }[]): SentenceCitationsDraft['citations'] {
  const quotes = findings.map((f) => ({ id: f.id, words: words(f.quote) })).filter((f) => f.words.size > 0);
  return sentences.flatMap((s) => {
    const own = words(s.text);
    let best: { id: string; share: number } | undefined;
    for (const f of quotes) {
      let shared = 0;
      for (const w of f.words) if (own.has(w)) shared += 1;
      const share = shared / f.words.size;
      if (share >= 0.5 && (!best || share > best.share)) best = { id: f.id, share };
    }
    return best ? [{ sentence: s.n, findingIds: [best.id] }] : [];
  });
}
