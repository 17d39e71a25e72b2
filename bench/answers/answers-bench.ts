/**
 * Question answering on the bundled speeches, through the real service: every question is a research run
 * submitted over REST, and a question counts as answered when its report's lede (the summary) names the
 * right answer and cites a passage of the right speech.
 *
 *   npm run bench:answers -- [--questions <file.jsonl>] [--concurrency N] [--workers N] [--out <dir>] [--corpus <name>]
 *
 * A questions file has one JSON object per line:
 *   {"question": "...", "answer": ["1934"], "speech": ["1934, Franklin D. Roosevelt"]}
 * `answer`: strings any one of which the lede must name (a name matches with or without the periods after
 * initials); `speech`: the titles of the speeches a lede citation may come from (empty: any, or none);
 * `{"question": "...", "absent": true}`: the corpus does not hold the answer, and the lede's first sentence must
 * say so (no / not / none). Default file: bench/answers/sotu-questions.jsonl.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Report } from '@orrery/protocol';
import { readJsonl } from '../coverage/score';
import { readFlags } from '../support/flags';
import { startBenchStack } from '../support/service-stack';
import { submitWithRetry } from '../support/submit-with-retry';

export interface AnswerQuestion {
  question: string;
  answer?: string[];
  speech?: string[];
  absent?: boolean;
}

export interface AnswerScore {
  question: string;
  named: boolean;
  cited: boolean;
  correct: boolean;
  lede: string;
  citedSpeeches: string[];
}

const USAGE = 'usage: bench:answers -- [--questions <file.jsonl>] [--concurrency N] [--workers N] [--out <dir>] [--corpus <name>]';

interface Args {
  questions: string;
  concurrency: number;
  workers: number;
  out?: string;
  corpus: string;
}

function parseArgs(argv: string[]): Args {
  const f = readFlags(argv, { values: ['--questions', '--concurrency', '--workers', '--out', '--corpus'] }, USAGE);
  const questions = f.value('--questions');
  const out = f.value('--out');
  return {
    questions: questions ? resolve(questions) : resolve(__dirname, '..', '..', 'answers', 'sotu-questions.jsonl'),
    concurrency: f.int('--concurrency') ?? 4,
    workers: f.int('--workers') ?? 2,
    corpus: f.value('--corpus') ?? 'sotu',
    ...(out ? { out } : {}),
  };
}

/** "Franklin D. Roosevelt" and "Franklin D Roosevelt" are one name; "1934" is not "19345". */
const normalize = (s: string): string => s.toLowerCase().replace(/\.(?=\s|$)/g, '').replace(/[’']/g, "'").replace(/\s+/g, ' ');
const names = (lede: string, answer: string): boolean => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(normalize(answer))}(?![\\p{L}\\p{N}])`, 'u').test(normalize(lede));
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Scores one report's lede against the expected answer and speech. */
export function scoreAnswer(q: AnswerQuestion, report: Pick<Report, 'summary' | 'summaryCitations' | 'sources'>): AnswerScore {
  const lede = report.summary;
  const titles = new Map(report.sources.map((s) => [s.id, s.title]));
  const citedSpeeches = [...new Set((report.summaryCitations ?? []).map((c) => titles.get(c.sourceId) ?? c.sourceId))];
  if (q.absent) {
    const first = lede.split(/(?<=[.!?])\s/)[0] ?? '';
    const named = /\b(no|not|none)\b/i.test(first);
    return { question: q.question, named, cited: true, correct: named, lede, citedSpeeches };
  }
  const named = (q.answer ?? []).some((a) => names(lede, a));
  const cited = !q.speech?.length || citedSpeeches.some((t) => q.speech!.includes(t));
  return { question: q.question, named, cited, correct: named && cited, lede, citedSpeeches };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const questions = readJsonl<AnswerQuestion>(args.questions);
  const stack = await startBenchStack({ name: 'answers', workers: args.workers, env: { ENGINE: 'corpus', DEFAULT_CORPUS: args.corpus } });
  const t0 = performance.now();
  const scores: AnswerScore[] = new Array(questions.length);
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < questions.length) {
        const i = next++;
        const q = questions[i]!;
        const { id } = await submitWithRetry(() => stack.client.submit({ topic: q.question, corpus: args.corpus }));
        const status = await stack.client.waitForEnd(id);
        if (status !== 'done') throw new Error(`run for "${q.question}" ended ${status}`);
        const report = await stack.client.report(id);
        scores[i] = scoreAnswer(q, report);
        if (args.out) {
          mkdirSync(args.out, { recursive: true });
          writeFileSync(join(args.out, `q${String(i + 1).padStart(2, '0')}.json`), JSON.stringify(report, null, 2));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(args.concurrency, questions.length) }, worker));
  } catch (err) {
    const c = stack.coordinator;
    throw new Error(`${err instanceof Error ? err.message : String(err)}${c.exitCode !== null || c.signalCode !== null ? ` (the coordinator exited: ${c.exitCode ?? c.signalCode})` : ''}`);
  } finally {
    await stack.stop();
  }
  for (const s of scores) {
    const mark = s.correct ? 'ok  ' : s.named ? 'cite' : 'miss';
    console.log(`${mark}  ${s.question}`);
    if (!s.correct) console.log(`        lede: ${s.lede.slice(0, 240)}\n        cites: ${s.citedSpeeches.join('; ') || '(nothing)'}`);
  }
  const correct = scores.filter((s) => s.correct).length;
  const named = scores.filter((s) => s.named).length;
  console.log(
    `\nanswered: ${correct}/${scores.length} = ${(correct / scores.length).toFixed(3)} (lede names the answer and cites the right speech); ` +
      `names the answer: ${named}/${scores.length}; ${args.questions}; ${Math.round((performance.now() - t0) / 1000)} s`,
  );
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
