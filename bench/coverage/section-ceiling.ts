/**
 * What section_recall the text supports on a FreshWiki-style benchmark: the share of sections with at
 * least N words (the best an engine that reaches exactly those can score), the ceiling set by sections
 * whose passages have the same words as passages of another article, and, given a benchmark's report directory, how
 * much of the sections with N+ words the reports reach.
 *
 *   node bench/dist/coverage/section-ceiling.js --corpus <corpus.jsonl> --qrels <qrels.jsonl> [--reports <dir>] [--min-words 10,15,25]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { topicSlug } from './report-names';
import { citedSourceIds, judgmentsByTopic, readJsonl, type CitingReport, type Qrel } from './score';
import { lengthCeiling, recallOverLongSections, sameWordsCeiling } from './section-sizes';

const USAGE = 'usage: section-ceiling --corpus <corpus.jsonl> --qrels <qrels.jsonl> [--reports <dir>] [--min-words 10,15,25]';

function main(): void {
  const argv = process.argv.slice(2);
  const opt = (k: string): string | undefined => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const corpusPath = opt('--corpus');
  const qrelsPath = opt('--qrels');
  if (!corpusPath || !qrelsPath) throw new Error(USAGE);
  const minWords = (opt('--min-words') ?? '1,10,15,20,25,40').split(',').map(Number);
  if (minWords.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`--min-words takes whole numbers: ${USAGE}`);
  const texts = new Map(readJsonl<{ id: string; text: string }>(corpusPath).map((p) => [p.id, p.text]));
  const textOf = (id: string): string => texts.get(id) ?? '';
  const topics = [...judgmentsByTopic(readJsonl<Qrel>(qrelsPath)).values()];
  const reportDir = opt('--reports');
  const cited = new Map<string, string[]>();
  if (reportDir)
    for (const j of topics) {
      const file = join(reportDir, `${topicSlug(j.topic)}.json`);
      if (existsSync(file)) cited.set(j.topic, citedSourceIds(JSON.parse(readFileSync(file, 'utf8')) as CitingReport));
    }

  const sections = topics.reduce((s, j) => s + j.sections.size, 0);
  console.log(`${topics.length} topics, ${sections} sections${reportDir ? `, ${cited.size} reports in ${reportDir}` : ''}`);
  console.log(`ceiling without sections whose every passage has the words of a passage in another article: ${sameWordsCeiling(topics, textOf, [...texts.keys()]).toFixed(3)}`);
  console.log(`min words | ceiling (reach exactly these sections)${reportDir ? ' | reports: section_recall over these sections' : ''}`);
  for (const n of minWords) {
    const row = [`${String(n).padStart(9)}`, lengthCeiling(topics, textOf, n).toFixed(3).padStart(38)];
    if (reportDir) row.push(recallOverLongSections(cited, topics, textOf, n).toFixed(3).padStart(10));
    console.log(row.join(' | '));
  }
}

main();
