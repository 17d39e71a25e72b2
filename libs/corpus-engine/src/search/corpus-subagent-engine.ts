import type { Finding, ReportShape, SearchResult, SearchTask, Source, SynthesizeResult, SynthesizeTask } from '@orrery/protocol';
import { ZERO_USAGE, type ProgressReporter, type SubagentEngine, inToolSpan } from '@orrery/engine';
import { classifyRequest, questionForm, reportShape, analyzeTerms } from '@orrery/language';
import { retrievalOf } from './answer-confidence';
import { type ComparisonSide, comparisonSides } from '../plan/comparison-sides';
import { documentStructure, onePerDocumentFirst } from '../index/documents';
import { surveyByEra } from '../index/eras';
import { companyWeights, subjectCompany } from '../index/subject-company';
import { phraseWeights, surveyByCompany } from '../index/subject-phrases';
import { type SubjectForms, subjectForms } from '../index/subject-forms';
import type { CorpusIndex } from '../index/corpus-index';
import type { CorpusView, CorpusViews } from '../index/corpus-view';
import { subjectCore } from '../write/comparative-prose';
import { extractiveReport } from '../write/extractive-synthesis';
import { isName } from '../plan/facets';
import { askedAuthors } from '../plan/asked-authors';
import { byAuthors, inYears, rankForSubtopic } from './passage-ranking';
import { answerQuestion, type CorpusAnswer } from './question-answer';
import { selectQuote } from './quote-selection';
import { type CorpusVocabulary, shortHash } from '@orrery/passages';
import { OVERVIEW_ID } from '../plan/subtopic-builder';
import { keptTopicProfile } from '../profile/kept-profile';
import { DEFAULT_TOPIC_PROFILE, type TopicProfileOptions } from '../profile/topic-profile';
import { clipText } from '@orrery/protocol';

/** A finding id: the source id plus a short hash of the quote (stable across rounds and processes). */
export function findingId(sourceId: string, quote: string): string {
  return `${sourceId}~${shortHash(quote, 8)}`;
}

/**
 * The spoke side of the corpus engine. Each call knows only its task payload and the read-only corpus:
 * BM25 search with a topic precision guard, verbatim quotes, and extractive synthesis.
 */
export class CorpusSubagentEngine implements SubagentEngine {
  readonly name = 'corpus' as const;

  constructor(
    private readonly registry: CorpusViews,
    private readonly defaultCorpus = 'sotu',
    /** The topic profile (the precision guard): the coordinator's must be the same. */
    private readonly profileOptions: TopicProfileOptions = DEFAULT_TOPIC_PROFILE,
  ) {}

  /**
   * The question's shape and the task's side, as the plan carries them. A job queued before plans carried them
   * reads them from the topic as spokes used to.
   */
  private shapeOf(task: SearchTask, index: CorpusIndex, vocabulary: CorpusVocabulary): { shape: ReportShape; side?: ComparisonSide } {
    const planned = task.context.shape;
    if (planned) return { shape: planned, ...(planned.kind === 'comparative' && task.side ? { side: { ...task.side, subtopicId: task.subtopicId } } : {}) };
    const shape = reportShape(task.context.topic);
    const side = shape.kind === 'comparative' ? comparisonSides(index, vocabulary, shape.sides)?.find((s) => s.subtopicId === task.subtopicId) : undefined;
    return { shape, ...(side ? { side } : {}) };
  }

  private corpus(name: string | undefined, topic: string): Promise<CorpusView> {
    return this.registry.forTopic(name ?? this.defaultCorpus, topic);
  }

  /** The task's search of the corpus, as a tool call of the run's trace (a datastore query, in the GenAI conventions' terms). */
  search(task: SearchTask, progress: ProgressReporter): Promise<SearchResult> {
    return inToolSpan('search_corpus', 'datastore', task.taskId, async (span) => {
      const result = await this.searchCorpus(task, progress);
      span.setAttribute('orrery.findings', result.findings.length);
      return result;
    });
  }

  private async searchCorpus(task: SearchTask, progress: ProgressReporter): Promise<SearchResult> {
    await progress({ stage: 'loading', message: `loading corpus ${task.corpus ?? this.defaultCorpus}`, fraction: 0.1 });
    const { index, vocabulary, origin } = await this.corpus(task.corpus, task.context.topic);
    // A question with one expected answer is answered from the documents (their dates and authors first).
    if (classifyRequest(task.query).class === 'straightforward') {
      const answer = answerQuestion(index, vocabulary, task.query, task.maxFindings);
      if (answer) return this.answered(task, index, answer, progress);
    }
    const { shape, side } = this.shapeOf(task, index, vocabulary);
    const { says } = sensesOf(index, shape);
    if (side) return this.sideSearch(task, index, side, shape.subject || task.context.topic, says, progress);
    const profile = await keptTopicProfile(index, origin, task.context.topic, this.profileOptions);
    await progress({ stage: 'searching', message: clipText(`BM25 search: ${task.query}`, 500), fraction: 0.4 });
    const known = new Set(task.knownSourceIds);
    const ranked = rankForSubtopic(index, profile, {
      query: task.query,
      include: task.context.scope.include,
      exclude: task.context.scope.exclude,
      ...(task.context.scope.excludeYears ? { excludeYears: task.context.scope.excludeYears } : {}),
      ...(task.context.scope.authors ? { authors: task.context.scope.authors } : {}),
      known,
      limit: task.maxFindings,
    });
    const wanted = new Set([...analyzeTerms(task.query), ...task.context.scope.include.flatMap((s) => analyzeTerms(s)), ...profile.terms]);
    const findings: Finding[] = [];
    const sources: Source[] = [];
    const add = (id: string, quote: string, relevance: Finding['relevance']): void => {
      const p = index.passage(id)!;
      // A passage that says the subject's stem only in another sense ("I trust") is not about it.
      if (!says(p.text)) return;
      findings.push({ id: findingId(p.id, quote), claim: quote, sourceId: p.id, quote, subtopicId: task.subtopicId, relevance });
      const source: Source = { id: p.id, kind: 'passage', title: p.title, text: p.text };
      if (p.url) source.url = p.url;
      sources.push(source);
    };
    for (const r of ranked) add(r.id, selectQuote(index, index.passage(r.id)!.text, wanted, profile.terms, says).quote, { score: round(r.score), topicTerms: r.topicTerms, facetTerms: r.facetTerms });
    // How something was talked about, over dated documents: the overview also reads every period that speaks of the subject.
    if (task.subtopicId === OVERVIEW_ID && (shape.kind === 'survey' || shape.kind === 'change') && !questionForm(task.context.topic).ordinal) {
      const subject = [...new Set(analyzeTerms(shape.subject || task.context.topic))];
      const top = Math.max(...ranked.map((r) => r.score), 0) || 1;
      const taken = new Set([...known, ...ranked.map((r) => r.id)]);
      const years = task.context.scope.excludeYears ?? [];
      const authors = task.context.scope.authors ? new Set(task.context.scope.authors) : null;
      const structure = documentStructure(index);
      const skip = (id: string): boolean => taken.has(id) || inYears(structure.yearOf(id), years) || (authors !== null && !byAuthors(structure.authorOf(id), authors));
      // One speaker's period is read however few passages of it say the subject: the speaker may say it once.
      for (const e of surveyByEra(index, subject, SURVEY_PER_ERA, skip, authors ? 1 : undefined)) {
        taken.add(e.id);
        add(e.id, selectQuote(index, index.passage(e.id)!.text, subject, subject, says).quote, { score: round(top * e.score), topicTerms: subject, facetTerms: [] });
      }
      // ...and what the subject keeps company with across the corpus: the themes a reader expects, each read where it is said.
      for (const e of surveyByCompany(index, subject, SURVEY_COMPANY_PHRASES, SURVEY_PER_PHRASE, skip))
        add(e.id, selectQuote(index, index.passage(e.id)!.text, [...subject, ...e.own], subject, says).quote, { score: round(top * e.score), topicTerms: subject, facetTerms: e.own });
    }
    await progress({ stage: 'done', message: `${findings.length} findings from ${sources.length} passages`, fraction: 1 });
    return {
      kind: 'search',
      taskId: task.taskId,
      usage: ZERO_USAGE,
      stats: { candidates: ranked.length, knownSkipped: ranked.filter((r) => r.known).length, onTopicEvidence: profile.evidence.length },
      findings,
      sources,
    };
  }

  /**
   * One side of a comparison: the subject's words (BM25) in that side's passages only (its authors'
   * documents, or passages that use its words) that say the subject in the sense asked (`says`), one passage per
   * document before a second of any.
   */
  private async sideSearch(task: SearchTask, index: CorpusIndex, side: ComparisonSide, subject: string, says: (text: string) => boolean, progress: ProgressReporter): Promise<SearchResult> {
    await progress({ stage: 'searching', message: clipText(`BM25 search in ${side.name}'s passages: ${subject}`, 500), fraction: 0.4 });
    const structure = documentStructure(index);
    const authors = side.authors ? new Set(side.authors) : null;
    const years = task.context.scope.excludeYears ?? [];
    const inSide = (id: string): boolean => (authors ? byAuthors(structure.authorOf(id), authors) : side.terms.every((t) => index.termsOf(id).includes(t))) && !inYears(structure.yearOf(id), years);
    const subjectTerms = [...new Set(analyzeTerms(subject))].filter((t) => !side.terms.includes(t));
    const weights = new Map([...subjectTerms.map((t) => [t, 2] as const), ...side.terms.map((t) => [t, 1] as const)]);
    const known = new Set(task.knownSourceIds);
    const hits = index.searchTerms([...weights.keys()], { limit: 300, weights, filter: inSide }).filter((h) => subjectTerms.length === 0 || (h.matched.some((t) => subjectTerms.includes(t)) && says(index.passage(h.id)!.text)));
    const fresh = hits.filter((h) => !known.has(h.id));
    const picked: { hit: (typeof hits)[number]; word?: string }[] = onePerDocumentFirst(index, fresh)
      .slice(0, task.maxFindings)
      .map((hit) => ({ hit }));
    // What the subject keeps company with, said by this side: the aspects a comparison can set side by side.
    if (subjectTerms.length)
      for (const { stem } of subjectCompany(index, [...new Set(analyzeTerms(subjectCore(subject)))].filter((t) => !side.terms.includes(t))).slice(0, SIDE_COMPANY_WORDS)) {
        const hit = fresh.find((h) => !picked.some((p) => p.hit === h) && index.termsOf(h.id).includes(stem));
        if (hit) picked.push({ hit, word: stem });
      }
    const top = hits[0]?.score ?? 1;
    const findings: Finding[] = [];
    const sources: Source[] = [];
    for (const { hit: h, word } of picked) {
      const p = index.passage(h.id)!;
      const { quote } = selectQuote(index, p.text, subjectTerms.length ? [...subjectTerms, ...(word ? [word] : [])] : side.terms, subjectTerms, says);
      findings.push({ id: findingId(p.id, quote), claim: quote, sourceId: p.id, quote, subtopicId: task.subtopicId, relevance: { score: round(h.score / top), topicTerms: h.matched, facetTerms: word ? [...side.terms, word] : side.terms } });
      const source: Source = { id: p.id, kind: 'passage', title: p.title, text: p.text };
      if (p.url) source.url = p.url;
      sources.push(source);
    }
    await progress({ stage: 'done', message: `${findings.length} findings for ${side.name}`, fraction: 1 });
    return { kind: 'search', taskId: task.taskId, usage: ZERO_USAGE, stats: { candidates: hits.length, knownSkipped: hits.length - fresh.length }, findings, sources };
  }

  /** The answer as findings: the first claims the answer and quotes the passage that shows it; the rest support it. */
  private async answered(task: SearchTask, index: CorpusIndex, answer: CorpusAnswer, progress: ProgressReporter): Promise<SearchResult> {
    await progress({
      stage: 'decision:answer',
      message: clipText(answer.text, 500),
      decision: {
        decisionType: 'answer',
        level: 'L0',
        confidence: answer.found ? 0.85 : 0.6,
        conclusion: clipText(answer.found ? `answered: ${answer.text}` : `not in the corpus: ${answer.text}`, 2000),
        signals: answer.signals,
      },
    });
    const findings: Finding[] = [];
    const sources: Source[] = [];
    answer.evidence.forEach((e, i) => {
      const p = index.passage(e.id)!;
      const claim = i === 0 ? answer.text : e.claim;
      findings.push({ id: findingId(p.id, e.quote), claim: clipText(claim, 5000), sourceId: p.id, quote: e.quote, subtopicId: task.subtopicId, relevance: { score: round(1 / (1 + i)), topicTerms: [], facetTerms: [] } });
      const source: Source = { id: p.id, kind: 'passage', title: p.title, text: p.text };
      if (p.url) source.url = p.url;
      sources.push(source);
    });
    await progress({ stage: 'done', message: `${findings.length} findings from ${sources.length} passages`, fraction: 1 });
    return { kind: 'search', taskId: task.taskId, usage: ZERO_USAGE, stats: { candidates: findings.length, answered: answer.found ? 1 : 0 }, findings, sources };
  }

  async synthesize(task: SynthesizeTask, progress: ProgressReporter): Promise<SynthesizeResult> {
    await progress({ stage: 'writing', message: `extractive synthesis of ${task.sections.length} sections`, fraction: 0.2 });
    const { index, vocabulary } = await this.corpus(task.corpus, task.context.topic);
    // The writer tells the sides apart in the whole ledger's evidence, so it reads them on the corpus itself.
    const shape = task.context.shape ?? reportShape(task.context.topic);
    const sides = shape.kind === 'comparative' ? comparisonSides(index, vocabulary, shape.sides) : null;
    const subject = shape.subject || task.context.topic;
    const retrieval = retrievalOf(index, task.context.topic, subject);
    // A comparison with a side the corpus never names ("ini" among READMEs that hold none of it) says so first.
    const unknownSides = shape.kind === 'comparative' && !sides ? shape.sides.filter((label) => analyzeTerms(label).length > 0 && analyzeTerms(label).every((t) => index.df(t) === 0)) : [];
    const { forms, says } = sensesOf(index, shape);
    const speakers = askedAuthors(index, vocabulary, task.context.topic);
    const report = extractiveReport(task, { vocabulary, isName: (word) => isName(index, word), shape, sides, ...(speakers.length ? { speakers } : {}), ...(forms.length ? { saysSubject: says } : {}), ...(retrieval ? { retrieval } : {}), ...(unknownSides.length ? { unknownSides } : {}), idf: (t) => index.idf(t), company: (subject) => companyWeights(index, subject), companyPhrases: (subject) => phraseWeights(index, subject) });
    await progress({ stage: 'done', message: `${report.sections.length} sections, ${report.citedSources} sources cited`, fraction: 1 });
    return {
      kind: 'synthesize',
      taskId: task.taskId,
      usage: ZERO_USAGE,
      stats: { citedSources: report.citedSources, droppedFindings: report.droppedFindings },
      title: report.title,
      summary: report.summary,
      ...(report.summaryCitations.length ? { summaryCitations: report.summaryCitations } : {}),
      sections: report.sections,
      ...(report.unanswered ? { unanswered: true as const } : {}),
    };
  }
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Passages the overview of a survey over dated documents reads per era, beyond its own ranking. */
export const SURVEY_PER_ERA = 8;
/** A survey also reads the subject's this many best company phrases (`subjectPhrases`)... */
export const SURVEY_COMPANY_PHRASES = 20;
/** ...each in this many passages. */
export const SURVEY_PER_PHRASE = 3;
/** One side of a comparison also reads its best passage on each of the subject's this many best company words. */
export const SIDE_COMPANY_WORDS = 10;

/**
 * What a passage must say to be about the subject: a survey, a change or a comparison reads the subject across the
 * corpus, so a word of it whose stem another sense owns is read as the question writes it (`subjectForms`). Only a
 * subject of a few words names a thing: a longer one is the question itself ("How do I limit the nesting depth when
 * parsing with qs"), whose words ("nesting", "parsing") are read by their stems as retrieval reads them.
 */
function sensesOf(index: CorpusIndex, shape: ReportShape): SubjectForms {
  const named = shape.subject && analyzeTerms(shape.subject).length <= SUBJECT_WORDS;
  return named && (shape.kind === 'survey' || shape.kind === 'change' || shape.kind === 'comparative') ? subjectForms(index, shape.subject) : EVERY_SENSE;
}
/** Content words a subject that names a thing holds at most ("smartphones and mobile apps"). */
const SUBJECT_WORDS = 3;
const EVERY_SENSE: SubjectForms = { forms: [], says: () => true };

