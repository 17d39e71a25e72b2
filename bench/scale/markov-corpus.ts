import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { readFlags } from '../support/flags';
import { prng } from '../support/prng';
import { MarkovModel } from './markov-model';
import { type TermStats, TermStatsAccumulator } from './term-stats';

const USAGE = `Usage: npm run bench:markov-corpus -- --pool FILE --passages N --out FILE [--seed 42] [--stats-sample 200000]

Writes a corpus of N passages (JSONL, {id,title,text}): every passage of the pool (a JSONL of real passages, e.g.
the scale build's pool.jsonl or corpus-100k.jsonl) first, then generated ones up to N from a word-level order-2
Markov model trained on the pool. Generated passages come in documents whose sizes, and passages whose lengths, are
drawn from the pool's; their ids are markov/markov-<doc>.txt#<n> and their titles markov-<doc>.txt. Prints the term
statistics of the generated passages (the first --stats-sample of them) beside the pool's. The output is the same for
the same pool, N and seed.`;

const PoolLine = z.object({ id: z.string().min(1), title: z.string().optional(), text: z.string() });
type Passage = { id: string; title: string; text: string };

export interface MarkovCorpusOptions {
  pool: AsyncIterable<string>;
  passages: number;
  seed: number;
  write: (line: string) => Promise<void>;
  /** Generated passages the statistics are taken over (the first ones); every one when absent. */
  statsSample?: number;
}

/** Copies the pool, then generates up to `passages`; returns the term statistics of both halves. */
export async function buildMarkovCorpus(opts: MarkovCorpusOptions): Promise<{ real: TermStatsAccumulator; generated: TermStatsAccumulator }> {
  const texts: string[] = [];
  const lengths: number[] = [];
  const docSizes: number[] = [];
  const real = new TermStatsAccumulator();
  let lastTitle: string | undefined;
  let written = 0;
  let lineNo = 0;
  for await (const raw of opts.pool) {
    lineNo++;
    if (!raw.trim()) continue;
    const parsed = PoolLine.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`pool line ${lineNo}: ${z.prettifyError(parsed.error)}`);
    const p: Passage = { id: parsed.data.id, title: parsed.data.title ?? parsed.data.id, text: parsed.data.text };
    texts.push(p.text);
    lengths.push(p.text.split(/\s+/).filter(Boolean).length);
    if (p.title === lastTitle) docSizes[docSizes.length - 1]!++;
    else docSizes.push(1);
    lastTitle = p.title;
    real.add(p.text);
    if (written < opts.passages) {
      await opts.write(`${JSON.stringify(p)}\n`);
      written++;
    }
  }
  const model = MarkovModel.train(texts);
  texts.length = 0;
  const rand = prng(opts.seed);
  const pick = (xs: readonly number[]): number => xs[Math.floor(rand() * xs.length)]!;
  const generated = new TermStatsAccumulator();
  const firstGenerated = written;
  for (let doc = 0; written < opts.passages; doc++) {
    const title = `markov-${doc}.txt`;
    const size = pick(docSizes);
    for (let n = 0; n < size && written < opts.passages; n++) {
      const text = model.generate(pick(lengths), rand);
      if (written - firstGenerated < (opts.statsSample ?? Infinity)) generated.add(text);
      await opts.write(`${JSON.stringify({ id: `markov/${title}#${n}`, title, text })}\n`);
      written++;
    }
  }
  return { real, generated };
}

const fmt = (n: number | null, d = 3) => (n === null || !Number.isFinite(n) ? 'n/a' : n.toFixed(d));

/** The two columns as a Markdown table; the top terms are the pool's, with their share in the generated passages. */
export function statsTable(real: TermStats, generated: TermStats, generatedDf: (term: string) => number): string {
  const len = (s: TermStats) => `${fmt(s.length.mean, 0)} (${s.length.min}/${s.length.p10}/${s.length.p50}/${s.length.p90}/${s.length.max})`;
  const rows: [string, string, string][] = [
    ['passages', real.passages.toLocaleString('en-US'), generated.passages.toLocaleString('en-US')],
    ['tokens', real.tokens.toLocaleString('en-US'), generated.tokens.toLocaleString('en-US')],
    ['vocabulary (distinct terms)', real.vocabulary.toLocaleString('en-US'), generated.vocabulary.toLocaleString('en-US')],
    ['type/token ratio', fmt(real.typeTokenRatio, 4), fmt(generated.typeTokenRatio, 4)],
    ['distinct terms in the first 1M tokens', real.typesInFirstMillion?.toLocaleString('en-US') ?? 'n/a', generated.typesInFirstMillion?.toLocaleString('en-US') ?? 'n/a'],
    ['Zipf slope (ranks 1–10,000)', fmt(real.zipfSlope), fmt(generated.zipfSlope)],
    ['passage length in words: mean (min/p10/p50/p90/max)', len(real), len(generated)],
    ...real.topTerms.map(({ term, df }): [string, string, string] => [`document frequency of "${term}"`, fmt(df), fmt(generatedDf(term))]),
  ];
  return ['| statistic | real (pool) | generated |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** Lines gathered into writes of about 1 MB, waiting for the stream to drain when its buffer is full. */
function batchedWriter(out: WriteStream): { write: (line: string) => Promise<void>; flush: () => Promise<void> } {
  let batch: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!batch.length) return;
    const chunk = batch.join('');
    batch = [];
    size = 0;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  return {
    write: async (line) => {
      batch.push(line);
      size += line.length;
      if (size >= 1 << 20) await flush();
    },
    flush,
  };
}

async function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { values: ['--pool', '--passages', '--out', '--seed', '--stats-sample'] }, USAGE);
  const pool = flags.value('--pool');
  const outPath = flags.value('--out');
  const passages = flags.int('--passages');
  if (!pool || !outPath || !passages) throw new Error(USAGE);
  const seed = flags.int('--seed') ?? 42;
  const statsSample = flags.int('--stats-sample') ?? 200_000;
  const out = createWriteStream(resolve(outPath));
  const t0 = performance.now();
  const lines = createInterface({ input: createReadStream(resolve(pool)), crlfDelay: Infinity });
  const writer = batchedWriter(out);
  const { real, generated } = await buildMarkovCorpus({ pool: lines, passages, seed, write: writer.write, statsSample });
  await writer.flush();
  out.end();
  await once(out, 'finish');
  const r = real.result();
  const g = generated.result();
  console.log(`markov-corpus: ${Math.min(passages, r.passages + g.passages).toLocaleString('en-US')} passages written to ${outPath} in ${((performance.now() - t0) / 1000).toFixed(1)} s (seed ${seed}; statistics over the pool and the first ${g.passages.toLocaleString('en-US')} generated); peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
  console.log(statsTable(r, g, (t) => generated.dfShare(t)));
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
