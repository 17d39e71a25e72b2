import { readFileSync } from 'node:fs';

/**
 * Pure scoring of research reports against FreshWiki-style relevance judgments (qrels):
 * precision, section_recall, passage_recall and citations per report, macro-averaged over topics.
 * No I/O here: the engine harness and the service benchmark both feed it parsed data.
 */

export interface Qrel {
  id: string;
  topic: string;
  /** Top-level section of the topic's article. */
  section: string;
  path?: string[];
}

export interface TopicJudgments {
  topic: string;
  /** Relevant passage id -> top-level section. */
  relevant: Map<string, string>;
  /** Top-level sections that have at least one passage. */
  sections: Set<string>;
}

export interface TopicScore {
  topic: string;
  precision: number;
  sectionRecall: number;
  passageRecall: number;
  citations: number;
}

export type MacroScore = Omit<TopicScore, 'topic'> & { topics: number };

/** Group qrels by topic. */
export function judgmentsByTopic(qrels: readonly Qrel[]): Map<string, TopicJudgments> {
  const out = new Map<string, TopicJudgments>();
  for (const q of qrels) {
    let j = out.get(q.topic);
    if (!j) out.set(q.topic, (j = { topic: q.topic, relevant: new Map(), sections: new Set() }));
    j.relevant.set(q.id, q.section);
    j.sections.add(q.section);
  }
  return out;
}

/** Minimal report shape: what the scorer reads from a protocol `Report` or `SynthesizeResult`. */
export interface CitingReport {
  sections: readonly { paragraphs: readonly { citations: readonly { sourceId: string }[] }[] }[];
}

/** Distinct cited source ids, in first-cited order. */
export function citedSourceIds(report: CitingReport): string[] {
  const seen = new Set<string>();
  for (const s of report.sections) for (const p of s.paragraphs) for (const c of p.citations) seen.add(c.sourceId);
  return [...seen];
}

/** Score one topic's cited passages. Precision of an empty citation list is 0. */
export function scoreCitations(cited: readonly string[], judgments: TopicJudgments): TopicScore {
  const distinct = [...new Set(cited)];
  const hits = distinct.filter((id) => judgments.relevant.has(id));
  const sectionsHit = new Set(hits.map((id) => judgments.relevant.get(id)!));
  return {
    topic: judgments.topic,
    precision: distinct.length ? hits.length / distinct.length : 0,
    sectionRecall: judgments.sections.size ? sectionsHit.size / judgments.sections.size : 0,
    passageRecall: judgments.relevant.size ? hits.length / judgments.relevant.size : 0,
    citations: distinct.length,
  };
}

export function scoreReport(report: CitingReport, judgments: TopicJudgments): TopicScore {
  return scoreCitations(citedSourceIds(report), judgments);
}

export function macroAverage(rows: readonly Omit<TopicScore, 'topic'>[]): MacroScore {
  const n = rows.length || 1;
  const avg = (k: keyof Omit<TopicScore, 'topic'>): number => rows.reduce((s, r) => s + r[k], 0) / n;
  return { precision: avg('precision'), sectionRecall: avg('sectionRecall'), passageRecall: avg('passageRecall'), citations: avg('citations'), topics: rows.length };
}

/** BM25 top-k baseline: cite the k best passages for the topic string. `search` is any ranked retriever. */
export function scoreTopK(
  search: (topic: string, k: number) => string[],
  topics: readonly string[],
  judgments: ReadonlyMap<string, TopicJudgments>,
  k: number,
): { rows: TopicScore[]; macro: MacroScore } {
  const rows = topics.filter((t) => judgments.has(t)).map((t) => scoreCitations(search(t, k), judgments.get(t)!));
  return { rows, macro: macroAverage(rows) };
}

export function formatScoreRow(label: string, s: Omit<TopicScore, 'topic'>, extra = ''): string {
  return `${label.padEnd(44)} precision ${s.precision.toFixed(3)}  section_recall ${s.sectionRecall.toFixed(3)}  passage_recall ${s.passageRecall.toFixed(3)}  cited ${s.citations.toFixed(1).padStart(5)}${extra}`;
}

/** One JSON value per non-empty line. */
export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}
