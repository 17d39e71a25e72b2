import { describe, expect, it } from 'vitest';
import { buildMarkovCorpus } from '../../bench/scale/markov-corpus';
import { MarkovModel } from '../../bench/scale/markov-model';
import { TermStatsAccumulator } from '../../bench/scale/term-stats';
import { prng } from '../../bench/support/prng';

const POOL = [
  { id: 'man/tls.1#0', title: 'tls.1', text: 'the server sends its certificate. the client checks the certificate chain.' },
  { id: 'man/tls.1#1', title: 'tls.1', text: 'a client retries the handshake after a timeout.' },
  { id: 'doc/retry.md#0', title: 'retry.md', text: 'the queue retries a job with exponential backoff after a failure.' },
];

async function* lines(): AsyncGenerator<string> {
  for (const p of POOL) yield JSON.stringify(p);
}

async function build(passages: number, seed: number, shard?: { index: number; of: number }) {
  const out: string[] = [];
  const result = await buildMarkovCorpus({ pool: lines(), passages, seed, write: async (l) => void out.push(l), ...(shard ? { shard } : {}) });
  return { out: out.map((l) => JSON.parse(l) as { id: string; title: string; text: string }), ...result };
}

describe('the Markov corpus builder', () => {
  it('emits only word pairs and triples seen in the pool, each passage as long as one drawn from the pool', () => {
    const model = MarkovModel.train(POOL.map((p) => p.text));
    const rand = prng(7);
    const pairs = new Set(POOL.flatMap((p) => p.text.split(' ').slice(1).map((w, i) => `${p.text.split(' ')[i]} ${w}`)));
    for (let i = 0; i < 50; i++) {
      const words = model.generate(12, rand).split(' ');
      expect(words).toHaveLength(12);
      // A pair never seen in the pool can only appear where one pool passage ended and the chain restarted.
      const starts = new Set(POOL.map((p) => p.text.split(' ')[0]));
      for (let k = 1; k < words.length; k++) {
        if (!pairs.has(`${words[k - 1]} ${words[k]}`)) expect(starts.has(words[k])).toBe(true);
      }
    }
    expect(model.vocabulary).toBe(new Set(POOL.flatMap((p) => p.text.split(' '))).size);
  });

  it('writes the pool first, then generated passages marked in their ids, the same for the same seed', async () => {
    const a = await build(20, 42);
    const b = await build(20, 42);
    const c = await build(20, 43);
    expect(a.out).toEqual(b.out);
    expect(a.out.map((p) => p.text)).not.toEqual(c.out.map((p) => p.text));
    expect(a.out).toHaveLength(20);
    expect(a.out.slice(0, 3)).toEqual(POOL);
    for (const p of a.out.slice(3)) {
      expect(p.id).toMatch(/^markov\/markov-0-\d+\.txt#\d+$/);
      expect(p.id.startsWith(`markov/${p.title}#`)).toBe(true);
      // Lengths are drawn from the pool's passages (12, 8 and 11 words).
      expect([12, 8, 11]).toContain(p.text.split(' ').length);
    }
    // Document sizes are drawn from the pool's (2 and 1 passages): a generated document never has a passage #2.
    expect(a.out.some((p) => p.id.endsWith('#2'))).toBe(false);
    expect(a.out.some((p) => p.id.endsWith('#1'))).toBe(true);
  });

  it('splits the work into parts that, concatenated, make N passages: the pool once, then each part its share', async () => {
    const parts = await Promise.all([0, 1, 2].map((index) => build(20, 42, { index, of: 3 })));
    const all = parts.flatMap((p) => p.out);
    expect(all).toHaveLength(20);
    expect(all.slice(0, 3)).toEqual(POOL);
    expect(parts.map((p) => p.out.length)).toEqual([3 + 5, 6, 6]);
    expect(new Set(all.map((p) => p.id)).size).toBe(20);
    expect(parts[2]!.out.every((p) => p.id.startsWith('markov/markov-2-'))).toBe(true);
    expect((await build(20, 42, { index: 1, of: 3 })).out).toEqual(parts[1]!.out);
  });

  it('stops at N, even inside the pool', async () => {
    const { out, real, generated } = await build(2, 1);
    expect(out).toEqual(POOL.slice(0, 2));
    expect(real.result().passages).toBe(3);
    expect(generated.result().passages).toBe(0);
  });

  it('computes the term statistics it reports', () => {
    const acc = new TermStatsAccumulator();
    acc.add('a b a c');
    acc.add('a b');
    acc.add("Don't A");
    const s = acc.result(2);
    expect(s.passages).toBe(3);
    expect(s.tokens).toBe(8);
    expect(s.vocabulary).toBe(4); // a, b, c, don't
    expect(s.typeTokenRatio).toBeCloseTo(4 / 8);
    expect(s.typesInFirstMillion).toBeNull();
    expect(s.length).toEqual({ mean: 8 / 3, min: 2, p10: 2, p50: 2, p90: 4, max: 4 });
    expect(s.topTerms).toEqual([
      { term: 'a', df: 1 },
      { term: 'b', df: 2 / 3 },
    ]);
    // Frequencies 4, 2, 1, 1 by rank: the least-squares slope of log f on log r.
    const lx = [1, 2, 3, 4].map(Math.log);
    const ly = [4, 2, 1, 1].map(Math.log);
    const mx = lx.reduce((x, y) => x + y) / 4;
    const my = ly.reduce((x, y) => x + y) / 4;
    const want = lx.reduce((s2, x, i) => s2 + (x - mx) * (ly[i]! - my), 0) / lx.reduce((s2, x) => s2 + (x - mx) ** 2, 0);
    expect(s.zipfSlope).toBeCloseTo(want, 10);
    expect(acc.dfShare('c')).toBeCloseTo(1 / 3);
  });
});
