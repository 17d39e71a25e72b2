import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { readFlags } from '../support/flags';
import { prng } from '../support/prng';
import { MarkovModel } from './markov-model';
import { type TermStats, TermStatsAccumulator } from './term-stats';

const USAGE = `Usage: npm run bench:markov-corpus -- --pool FILE --passages N --out FILE [--seed 42] [--stats-sample 200000] [--shard K/S]

Writes a corpus of N passages (JSONL, {id,title,text}): every passage of the pool (a JSONL of real passages, e.g.
the scale build's pool.jsonl or corpus-100k.jsonl) first, then generated ones up to N from a word-level order-2
Markov model trained on the pool. Generated passages come in documents whose sizes, and passages whose lengths, are
drawn from the pool's; their ids are markov/markov-<part>-<doc>.txt#<n> and their titles markov-<part>-<doc>.txt.
--shard K/S writes part K (0-based) of S: run the S parts at once and concatenate their files in order. Prints the term
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
  /**
   * Part `index` (0-based) of `of` parts that, concatenated in order, make the corpus: part 0 copies the pool, each
   * part generates its share of the rest from a seed of its own, so the parts can run at once.
   */
  shard?: { index: number; of: number };
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
      if ((opts.shard?.index ?? 0) === 0) await opts.write(`${JSON.stringify(p)}\n`);
      written++;
    }
  }
  const model = MarkovModel.train(texts);
  texts.length = 0;
  const { index: part, of: parts } = opts.shard ?? { index: 0, of: 1 };
  const toGenerate = Math.max(0, opts.passages - written);
  const share = (k: number) => Math.floor((toGenerate * k) / parts);
  const count = share(part + 1) - share(part);
  const rand = prng(opts.seed + part * 0x9e3779b1);
  const pick = (xs: readonly number[]): number => xs[Math.floor(rand() * xs.length)]!;
  const generated = new TermStatsAccumulator();
  let made = 0;
  for (let doc = 0; made < count; doc++) {
    const title = `markov-${part}-${doc}.txt`;
    const size = pick(docSizes);
    for (let n = 0; n < size && made < count; n++) {
      const text = model.generate(pick(lengths), rand);
      if (made < (opts.statsSample ?? Infinity)) generated.add(text);
      await opts.write(`${JSON.stringify({ id: `markov/${title}#${n}`, title, text })}\n`);
      made++;
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
  const flags = readFlags(process.argv.slice(2), { values: ['--pool', '--passages', '--out', '--seed', '--stats-sample', '--shard'] }, USAGE);
  const pool = flags.value('--pool');
  const outPath = flags.value('--out');
  const passages = flags.int('--passages');
  if (!pool || !outPath || !passages) throw new Error(USAGE);
  const seed = flags.int('--seed') ?? 42;
  const statsSample = flags.int('--stats-sample') ?? 200_000;
  const shardFlag = flags.value('--shard');
  const m = shardFlag === undefined ? null : /^(\d+)\/(\d+)$/.exec(shardFlag);
  if (shardFlag !== undefined && (!m || Number(m[1]) >= Number(m[2]))) throw new Error(`--shard must be K/S with 0 <= K < S\n${USAGE}`);
  const shard = m ? { index: Number(m[1]), of: Number(m[2]) } : undefined;
  const out = createWriteStream(resolve(outPath));
  const t0 = performance.now();
  const lines = createInterface({ input: createReadStream(resolve(pool)), crlfDelay: Infinity });
  const writer = batchedWriter(out);
  const { real, generated } = await buildMarkovCorpus({ pool: lines, passages, seed, write: writer.write, statsSample, ...(shard ? { shard } : {}) });
  await writer.flush();
  out.end();
  await once(out, 'finish');
  const r = real.result();
  const g = generated.result();
  console.log(`markov-corpus${shard ? ` part ${shard.index}/${shard.of}` : ''}: passages written to ${outPath} in ${((performance.now() - t0) / 1000).toFixed(1)} s (seed ${seed}; statistics over the pool and the first ${g.passages.toLocaleString('en-US')} generated); peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
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
