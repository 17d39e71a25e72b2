import { planIngest } from '@orrery/passages/ingest';
import { type PassageStore, type StoredHash, type StoredPassage } from '@orrery/passages';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readFlags } from '../support/flags';

const USAGE = `Usage: npm run bench:plan-memory -- [--passages 1000000]

The heap an ingest plan holds while it reads a source: a re-ingest of N passages over a store that holds the same N
(ids like the man-page corpus's, one in ten changed). planIngest's fingerprint tables beside the baseline measured in
the same run: the same ids and hashes as a Map and a Set of strings (what the plan held before).`;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveMb = (): number => {
  gc();
  // Typed arrays' buffers live outside the V8 heap.
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1e6;
};

const idOf = (i: number): string => `man${1 + (i % 8)}/command-${Math.floor(i / 40)}.${1 + (i % 8)}.txt#${i % 40}`;
const hashOf = (i: number, changed: boolean): string => `${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}${changed ? 'c' : 'a'}${'0'.repeat(11)}`;

/** A store of N passages' hashes, generated page by page (the store holds nothing in this process). */
function storeOf(n: number): Pick<PassageStore, 'hashPages' | 'remove'> {
  return {
    async *hashPages(): AsyncGenerator<readonly StoredHash[]> {
      for (let from = 0; from < n; from += 20_000) yield Array.from({ length: Math.min(20_000, n - from) }, (_, k) => [idOf(from + k), hashOf(from + k, false)] as const);
    },
    remove: async () => undefined,
  };
}

/** The source: the same ids, one in ten with another hash; `atEnd` runs with the plan's tables live, before it returns. */
async function* sourceOf(n: number, atEnd: () => void): AsyncGenerator<StoredPassage> {
  for (let i = 0; i < n; i++) yield { id: idOf(i), document: 'd', title: 't', text: 'x', contentHash: hashOf(i, i % 10 === 0) };
  atEnd();
}

async function main(): Promise<void> {
  const flags = readFlags(process.argv.slice(2), { values: ['--passages'] }, USAGE);
  const n = flags.int('--passages') ?? 1_000_000;
  const before = liveMb();
  let held = 0;
  const plan = await planIngest(sourceOf(n, () => (held = liveMb() - before)), storeOf(n), 'c', 1000, async () => undefined);

  const base = liveMb();
  const stored = new Map<string, string>();
  for await (const page of storeOf(n).hashPages('c')) for (const [id, hash] of page) stored.set(id, hash);
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(idOf(i));
  const baseline = liveMb() - base;
  console.log(`bench:plan-memory: ${n.toLocaleString('en-US')} passages, ${plan.changed.toLocaleString('en-US')} changed, ${stored.size === seen.size ? 'same ids' : 'ids differ'}`);
  console.log('| heap held while planning | MB | ratio to baseline |');
  console.log('|---|---|---|');
  console.log(`| baseline: Map of stored hashes + Set of ids seen | ${baseline.toFixed(1)} | 1.00 |`);
  console.log(`| planIngest (fingerprint tables) | ${held.toFixed(1)} | ${(held / baseline).toFixed(2)} |`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
