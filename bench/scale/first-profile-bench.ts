import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type * as CorpusEngine from '@orrery/corpus-engine';
import { readFlags } from '../support/flags';
import { median } from '../support/service-stack';

const USAGE = `Usage: node bench/dist/scale/first-profile-bench.js [--engines DIST[,DIST...]] [--runs 3] [--topic "Panama Canal"]

The first question's preparation on the bundled speeches in a cold process: a SQLite store already holding the corpus
(brought in by a first process, as a deployment's first start does), then each run a new process that builds the
corpus's whole index from the store and the topic's profile (in the profile thread), as a coordinator or a worker does on
its first question. --engines names builds of the engines (their dist/index.js; default this checkout's corpus engine) to compare in
the same run, each on a store of its own.`;

interface Timing {
  indexS: number;
  profileS: number;
  totalS: number;
}

const ENGINES = resolve(__dirname, '..', '..', '..', 'libs', 'corpus-engine', 'dist', 'index.js');
/** A build's corpus engine, with the store and the corpus name from this checkout when the build does not export them (the split packages). */
type Engines = typeof CorpusEngine & Pick<typeof import('@orrery/passages'), 'openPassageStore'> & Pick<typeof import('@orrery/protocol'), 'BUILTIN_CORPUS'>;

async function child(engines: string, file: string, topic: string): Promise<Timing> {
  const e = { ...require('@orrery/passages'), ...require('@orrery/protocol'), ...require(engines) } as Engines;
  const registry = new e.CorpusRegistry({ store: e.openPassageStore({ kind: 'sqlite', file }) });
  const t0 = performance.now();
  const { index } = await registry.forTopic(e.BUILTIN_CORPUS, topic);
  const t1 = performance.now();
  await e.prepareTopicProfile(index, topic, e.DEFAULT_TOPIC_PROFILE);
  const t2 = performance.now();
  return { indexS: (t1 - t0) / 1000, profileS: (t2 - t1) / 1000, totalS: (t2 - t0) / 1000 };
}

function run(engines: string, file: string, topic: string): Timing {
  const out = execFileSync(process.execPath, [__filename, '--child', engines, file, topic], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop()!) as Timing;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    const [engines, file, topic] = process.argv.slice(3) as [string, string, string];
    process.stdout.write(`${JSON.stringify(await child(engines, file, topic))}\n`);
    process.exit(0);
  }
  const flags = readFlags(process.argv.slice(2), { values: ['--engines', '--runs', '--topic'] }, USAGE);
  const builds = (flags.value('--engines') ?? ENGINES).split(',').map((p) => resolve(p));
  const runs = flags.int('--runs') ?? 3;
  // A topic whose profile reaches the partition (a community with a boundary; "civil rights" propagates instead).
  const topic = flags.value('--topic') ?? 'Panama Canal';
  const dir = mkdtempSync(join(tmpdir(), 'orrery-first-profile-'));
  try {
    // Each build's store filled first (a first process brings the corpus in), then cold runs interleaved across builds.
    const files = builds.map((_, i) => join(dir, `store-${i}.sqlite`));
    builds.forEach((b, i) => run(b, files[i]!, topic));
    const timings = builds.map((): Timing[] => []);
    for (let r = 0; r < runs; r++) builds.forEach((b, i) => timings[i]!.push(run(b, files[i]!, topic)));
    builds.forEach((b, i) => {
      const t = timings[i]!;
      const m = (k: keyof Timing) => median(t.map((x) => x[k])).toFixed(2);
      console.log(`${b}: median of ${runs} cold processes: whole index ${m('indexS')} s, first profile ${m('profileS')} s, total ${m('totalS')} s (runs: ${t.map((x) => x.totalS.toFixed(2)).join(', ')})`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
