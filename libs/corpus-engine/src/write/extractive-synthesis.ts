import { type Citation, type Finding, quoteOccursIn, type ReportSection, type SynthesizeTask, clipText } from '@orrery/protocol';
import { questionForm, reportShape, analyzeTerms } from '@orrery/language';
import { counted } from '@orrery/engine';
import { absentReport } from './absent-prose';
import { unanswered } from '../search/answer-confidence';
import { comparativeReport } from './comparative-prose';
import { type ComparisonSide, sideOfPassage } from '../plan/comparison-sides';
import { answeringPassages } from '../search/document-answer-size';
import { documentAndHeading, documentsReport, fileSources } from './documents-prose';
import { cosine } from '../index/corpus-index';
import { titleParts, yearOfTitle } from '../index/documents';
import { eraOf } from '../index/eras';
import { listAnd, type ProseContext, quotesOf, writeReport } from './report-prose';
import { themedReport } from './theme-prose';

export interface ExtractiveReport {
  title: string;
  summary: string;
  summaryCitations: Citation[];
  sections: ReportSection[];
  citedSources: number;
  droppedFindings: number;
  /** The corpus does not answer the question (`absentReport`). */
  unanswered?: true;
}

/**
 * An extractive report: one section per input section that has usable findings, paragraphs made of
 * verbatim quotes, each paragraph citing the quotes it is made of. Cites at most `maxCitations`
 * distinct sources, chosen round-robin across sections by relevance so every section keeps its best
 * evidence (breadth) before any section gets a second source. When the ledger holds more distinct
 * sources than the budget (and they are not dated documents), which sources may be cited is decided
 * first by diversity over their text (`diverseSelection`). A finding whose quote is not in its source's
 * text is dropped, never cited.
 */
export function extractiveReport(task: SynthesizeTask, prose: ProseContext): ExtractiveReport {
  const sourceText = new Map(task.sources.map((s) => [s.id, s.text]));
  let dropped = 0;
  // A "first" / "latest" question over dated sources: quotes in date order, so the answer leads.
  const intent = questionForm(task.context.topic).ordinal;
  const years = new Map(task.sources.map((s) => [s.id, yearOfTitle(s.title)]));
  const dated = task.sources.length > 0 && [...years.values()].every((y) => y !== null);
  const dateOrder = intent && dated ? { intent, years } : null;
  const queues = task.sections.map((section) => {
    const seen = new Set<string>();
    const usable: Finding[] = [];
    for (const f of [...section.findings].sort(byRelevance)) {
      const text = sourceText.get(f.sourceId);
      if (text === undefined || !f.quote || !quoteOccursIn(f.quote, text)) {
        dropped++;
        continue;
      }
      if (seen.has(f.id)) continue;
      seen.add(f.id);
      usable.push(f);
    }
    return dateOrder ? inDateOrder(usable, dateOrder) : usable;
  });

  const title = clipText(task.context.topic, 300);
  const titles = new Map(task.sources.map((s) => [s.id, s.title]));
  const shape = prose.shape ?? reportShape(task.context.topic);
  const finish = (raw: ReturnType<typeof writeReport>): ExtractiveReport => {
    const cited = new Set([...raw.summaryCitations, ...raw.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations))].map((c) => c.sourceId));
    // "Which presidents…" is answered first with who, and when.
    const who = asksForAuthors(task.context.topic, prose) ? whoSentence([...cited].map((id) => titleParts(titles.get(id))), shape.subject || task.context.topic, prose) : '';
    const before = [prose.unknownSides?.length ? unknownSidesSentence(prose.unknownSides, shape.kind === 'comparative' ? shape.sides : [], prose.vocabulary.documents) : '', who].filter(Boolean).join(' ');
    const written = before ? { ...raw, summary: `${before} ${raw.summary}` } : raw;
    return { title, ...written, citedSources: cited.size, droppedFindings: dropped };
  };
  // Retrieval finds nothing that answers: say so, and cite only the nearest passages.
  if (unanswered(prose.retrieval)) return { ...finish(absentReport(shape.subject || task.context.topic, prose.retrieval.missing, queues.flat(), titles)), unanswered: true };
  if (shape.kind === 'comparative' && prose.sides) {
    const perSide = balancedSides(queues.flat(), prose.sides, sourceText, titles, task.maxCitations);
    const chosenSides = prose.sides.map((s) => ({ subtopicId: s.subtopicId, title: s.name, findings: perSide.get(s.subtopicId) ?? [] }));
    const { shown } = quotesOf(chosenSides, titles);
    const quotes = new Map(shown.map((s) => [s.section.subtopicId, s.quotes]));
    return finish({ ...comparativeReport(shape.subject, prose.sides, quotes, titles, sourceText, prose) });
  }

  // How something was talked about, over dated speeches: the evidence of every section, grouped by theme.
  if (dated && !dateOrder && (shape.kind === 'survey' || shape.kind === 'change')) {
    const { shown, yearOf } = quotesOf([{ subtopicId: 'evidence', title: '', findings: queues.flat() }], titles);
    const themed = themedReport(shown[0]?.quotes ?? [], shape.subject || task.context.topic, task.maxCitations, titles, prose, yearOf, (id) => sourceText.get(id));
    if (themed) return finish(themed);
  }

  // Round-robin selection of distinct sources across sections.
  const cited = new Set<string>();
  const chosen: Finding[][] = task.sections.map(() => []);
  const cursor = queues.map(() => 0);
  const docs = sourceDocuments(task.sources);
  // More usable sources than the budget: which ones is decided by diversity (MMR over the passages' term
  // vectors), so the budget spreads over the sub-clusters of the evidence instead of its densest one.
  if (!docs && !dateOrder) {
    const allowed = diverseSelection(queues, sourceText, task.maxCitations);
    if (allowed) queues.forEach((q, i) => (queues[i] = q.filter((f) => allowed.has(f.sourceId))));
  }
  const citedDocs = new Map<string, number>();
  const citedEras = new Map<number, number>();
  // A "first" / "latest" question keeps its date order; any other over dated documents spreads over eras.
  const eraOfFinding = (f: Finding): number | null => (dated && !dateOrder ? eraOf(years.get(f.sourceId)!) : null);
  const uses = (f: Finding): number => {
    const era = eraOfFinding(f);
    return (citedDocs.get(docs?.get(f.sourceId) ?? f.sourceId) ?? 0) + (era === null ? 0 : (citedEras.get(era) ?? 0));
  };
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (let i = 0; i < queues.length; i++) {
      const q = queues[i]!;
      if (docs) preferNewDocument(q, cursor[i]!, uses, cited);
      while (cursor[i]! < q.length) {
        const f = q[cursor[i]!++]!;
        if (cited.has(f.sourceId)) {
          // Already cited elsewhere: may be reused here without spending the budget.
          if (!chosen[i]!.some((c) => c.sourceId === f.sourceId)) chosen[i]!.push(f);
          continue;
        }
        if (cited.size >= task.maxCitations) continue;
        cited.add(f.sourceId);
        const d = docs?.get(f.sourceId);
        if (d !== undefined) citedDocs.set(d, (citedDocs.get(d) ?? 0) + 1);
        const era = eraOfFinding(f);
        if (era !== null) citedEras.set(era, (citedEras.get(era) ?? 0) + 1);
        chosen[i]!.push(f);
        progressed = true;
        break;
      }
    }
  }

  // Passages of files (a folder of documents): those that answer, from all the search found, grouped by document and heading, each cited whole.
  if (!dated && fileSources(task.sources.map((s) => s.id))) {
    const place = (id: string): { document: string; heading: string | null } => documentAndHeading(id, titles.get(id));
    return finish(documentsReport(answeringPassages(queues.flat(), task.context.topic, (id) => sourceText.get(id), place, prose.idf), sourceText, titles, prose));
  }
  const written = writeReport(
    task.context.topic,
    task.sections.map((s, i) => ({ subtopicId: s.subtopicId, title: s.title, findings: chosen[i]! })),
    titles,
    prose,
  );
  return { title, ...written, citedSources: cited.size, droppedFindings: dropped };
}

/** Passages each side of a comparison cites at most. */
const PER_SIDE_MAX = 12;
/** ...and at least this many when it has them, however little another side has. */
const PER_SIDE_MIN = 6;

/**
 * A comparison's evidence, balanced: each finding goes to the side its source belongs to (its author, or the
 * side's words in it), findings of no side or of several are left out, and every side gets the same share of
 * the citation budget, its most relevant sources first, one per document before a second of any.
 */
function balancedSides(findings: readonly Finding[], sides: readonly ComparisonSide[], sourceText: ReadonlyMap<string, string>, titles: ReadonlyMap<string, string>, budget: number): Map<string, Finding[]> {
  const per = Math.max(1, Math.min(PER_SIDE_MAX, Math.floor(budget / sides.length)));
  const bySide = new Map<string, Finding[]>(sides.map((s) => [s.subtopicId, []]));
  for (const f of [...findings].sort(byRelevance)) {
    const terms = new Set(analyzeTerms(`${titles.get(f.sourceId) ?? ''} ${sourceText.get(f.sourceId) ?? ''}`));
    const side = sideOfPassage(sides, titleParts(titles.get(f.sourceId)).author, terms);
    if (side) bySide.get(side.subtopicId)!.push(f);
  }
  const out = new Map<string, Finding[]>();
  for (const [id, fs] of bySide) {
    const distinct = fs.filter((f, i) => fs.findIndex((g) => g.sourceId === f.sourceId) === i);
    const docOf = (f: Finding): string => titles.get(f.sourceId) ?? f.sourceId;
    const firsts = distinct.filter((f, i) => distinct.findIndex((g) => docOf(g) === docOf(f)) === i);
    out.set(id, [...firsts, ...distinct.filter((f) => !firsts.includes(f))]);
  }
  // A side with little to say caps the others: a comparison of 4 passages against 12 is not balanced.
  const fewest = Math.min(per, ...[...out.values()].map((fs) => fs.length).filter((n) => n > 0));
  for (const [id, fs] of out) out.set(id, fs.slice(0, Math.min(per, Math.max(PER_SIDE_MIN, fewest))));
  return out;
}

/** Weight of redundancy (max similarity to the sources already chosen) against relevance and centrality. */
export const MMR_LAMBDA = 0.5;
/** Share of centrality (cosine to the candidates' mean) in a source's base score; the rest is relevance. */
export const MMR_CENTRALITY = 0.25;

/**
 * Which sources may be cited: each section's best source first (breadth over sections), then maximal
 * marginal relevance over the remaining distinct sources: relevance is the finding's (best) relevance score,
 * scaled to [0, 1], blended with its centrality (cosine to the mean of all candidates, so an outlier
 * is not chosen only for being different); redundancy is the largest cosine to a source already chosen. Term
 * vectors are TF-IDF over the candidates themselves. Null when every source fits the budget.
 */
export function diverseSelection(queues: readonly Finding[][], sourceText: ReadonlyMap<string, string>, budget: number): Set<string> | null {
  const rel = new Map<string, number>();
  for (const q of queues) for (const f of q) rel.set(f.sourceId, Math.max(rel.get(f.sourceId) ?? 0, f.relevance?.score ?? 0));
  if (rel.size <= budget) return null;
  const ids = [...rel.keys()].sort();
  const tf = new Map(ids.map((id) => [id, termCounts(sourceText.get(id) ?? '')]));
  const df = new Map<string, number>();
  for (const v of tf.values()) for (const t of v.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const vec = new Map<string, Map<string, number>>();
  for (const [id, v] of tf) {
    const w = new Map<string, number>();
    for (const [t, n] of v) w.set(t, (1 + Math.log(n)) * Math.log(1 + ids.length / df.get(t)!));
    vec.set(id, w);
  }
  const mean = new Map<string, number>();
  for (const w of vec.values()) for (const [t, x] of w) mean.set(t, (mean.get(t) ?? 0) + x / ids.length);
  const maxRel = Math.max(...rel.values()) || 1;
  const base = new Map(ids.map((id) => [id, (1 - MMR_CENTRALITY) * (rel.get(id)! / maxRel) + MMR_CENTRALITY * cosine(vec.get(id)!, mean)]));
  const redundancy = new Map(ids.map((id) => [id, 0]));
  const out = new Set<string>();
  const take = (pick: string): void => {
    out.add(pick);
    for (const id of ids) if (!out.has(id)) redundancy.set(id, Math.max(redundancy.get(id)!, cosine(vec.get(id)!, vec.get(pick)!)));
  };
  // Breadth over sections first: each section's best source not yet taken.
  for (const q of queues) {
    if (out.size >= budget) break;
    const head = q.find((f) => !out.has(f.sourceId));
    if (head) take(head.sourceId);
  }
  while (out.size < budget) {
    let best: string | null = null;
    let bestScore = -Infinity;
    for (const id of ids) {
      if (out.has(id)) continue;
      const s = (1 - MMR_LAMBDA) * base.get(id)! - MMR_LAMBDA * redundancy.get(id)!;
      if (s > bestScore) {
        bestScore = s;
        best = id;
      }
    }
    if (best === null) break;
    take(best);
  }
  return out;
}

function termCounts(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of analyzeTerms(text)) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function inDateOrder(fs: Finding[], o: { intent: 'earliest' | 'latest'; years: Map<string, number | null> }): Finding[] {
  const sign = o.intent === 'earliest' ? 1 : -1;
  return [...fs].sort((a, b) => sign * ((o.years.get(a.sourceId) ?? 0) - (o.years.get(b.sourceId) ?? 0)) || a.sourceId.localeCompare(b.sourceId, 'en', { numeric: true }));
}

/**
 * Sources grouped into documents by a shared title, when the ledger's titles group at all (several
 * sources per title, several titles); null otherwise, and then citation order is relevance alone.
 */
function sourceDocuments(sources: SynthesizeTask['sources']): Map<string, string> | null {
  const docs = new Map<string, string>();
  for (const s of sources) if (s.title && s.title !== s.id) docs.set(s.id, s.title);
  const titles = new Set(docs.values());
  return titles.size >= 3 && docs.size >= 0.8 * sources.length && titles.size < docs.size ? docs : null;
}

/**
 * Move forward, to the cursor, the best remaining finding whose document (and, for dated documents, whose
 * era) has been cited least (among findings at least half as relevant as the head): a report cites many
 * documents, from many periods, before a second passage of any one of them.
 */
function preferNewDocument(q: Finding[], at: number, uses: (f: Finding) => number, cited: Set<string>): void {
  const head = q[at];
  if (!head || cited.has(head.sourceId)) return;
  if (uses(head) === 0) return;
  const floor = 0.5 * (head.relevance?.score ?? 0);
  let best = at;
  for (let k = at + 1; k < q.length; k++) {
    const f = q[k]!;
    if (cited.has(f.sourceId) || (f.relevance?.score ?? 0) < floor) continue;
    if (uses(f) < uses(q[best]!)) best = k;
  }
  if (best !== at) q.splice(at, 0, ...q.splice(best, 1));
}

function byRelevance(a: Finding, b: Finding): number {
  return (b.relevance?.score ?? 0) - (a.relevance?.score ?? 0) || a.id.localeCompare(b.id);
}

/** "The documents never mention “ini”; what follows is what they say of js-yaml." */
function unknownSidesSentence(unknown: readonly string[], sides: readonly string[], documents: string): string {
  const known = sides.filter((s) => !unknown.includes(s));
  const never = `The ${documents} never mention ${listAnd(unknown.map((s) => `“${s}”`))}`;
  return known.length ? `${never}; what follows is what they say of ${listAnd([...known])}.` : `${never}.`;
}

/** Whether a question asks which of the corpus's authors ("Which presidents have discussed climate change?"). */
function asksForAuthors(topic: string, prose: ProseContext): boolean {
  const form = questionForm(topic);
  return form.many && !!form.opener && form.opener.toLowerCase().endsWith(prose.vocabulary.authors.toLowerCase());
}

/** "4 presidents speak of climate change in the passages cited: William J. Clinton (1998), …": the cited authors in the order they first spoke. */
function whoSentence(cited: readonly { year: number | null; author: string | null }[], subject: string, prose: ProseContext): string {
  const years = new Map<string, number[]>();
  for (const { year, author } of cited) if (author && year !== null) years.set(author, [...(years.get(author) ?? []), year]);
  if (years.size === 0) return '';
  const who = [...years.entries()]
    .map(([author, ys]) => ({ author, from: Math.min(...ys), to: Math.max(...ys) }))
    .sort((a, b) => a.from - b.from || a.author.localeCompare(b.author))
    .map((a) => `${a.author} (${a.from === a.to ? a.from : `${a.from}–${a.to}`})`);
  return `${counted(years.size, prose.vocabulary.author, prose.vocabulary.authors)} ${years.size === 1 ? 'speaks' : 'speak'} of ${subject} in the passages cited: ${listAnd(who)}.`;
}
