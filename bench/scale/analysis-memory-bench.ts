import { analyzeTerms } from '@orrery/language';
import { createReadStream } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createInterface } from 'node:readline';
import { readFlags } from '../support/flags';

const USAGE = `Usage: npm run bench:analysis-memory -- --corpus PATH [--passages 100000] [--skip 0]

The live heap of one thread that analyses a corpus's passages for indexing (what an ingest's analysis thread
holds), after every fifth of them, beside the baseline measured in the same run: the live heap after the first
fifth. A tokenizer whose caches grow with every distinct token shows a ratio well above 1.`;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

async function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { values: ['--corpus', '--passages', '--skip'] }, USAGE);
  const path = flags.value('--corpus');
  if (!path) throw new Error(USAGE);
  const n = flags.int('--passages') ?? 100_000;
  const skip = Number(flags.value('--skip') ?? 0);
  const start = liveMb();
  const step = Math.ceil(n / 5);
  const rows: [number, number][] = [];
  let seen = 0;
  let done = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (seen++ < skip || !line.trim()) continue;
    const p = JSON.parse(line) as { text: string; title?: string };
    analyzeTerms(p.text);
    if (p.title) analyzeTerms(p.title);
    if (++done % step === 0 || done === n) rows.push([done, liveMb() - start]);
    if (done >= n) break;
  }
  const base = rows[0]![1];
  console.log(`bench:analysis-memory: ${done.toLocaleString('en-US')} passages of ${path} (from line ${skip + 1})`);
  console.log('| passages analysed | live heap over the start, MB | ratio to the first fifth |');
  console.log('|---|---|---|');
  for (const [k, mb] of rows) console.log(`| ${k.toLocaleString('en-US')} | ${mb.toFixed(1)} | ${(mb / base).toFixed(2)} |`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
