import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCorporaSpec } from './corpora-config';
import { CorpusRegistry } from './corpus-registry';
import { SqlitePassageStore } from '@orrery/passages';

describe('CORPORA parsing', () => {
  it('parses name=path pairs', () => {
    expect(parseCorporaSpec(' a=/x/a.jsonl, b_2=./docs ')).toEqual([
      { name: 'a', path: '/x/a.jsonl' },
      { name: 'b_2', path: './docs' },
    ]);
    expect(parseCorporaSpec(undefined)).toEqual([]);
  });
  it.each(['a', '=x', 'a=', '../etc=x', 'a=x,a=y'])('rejects %j', (spec) => {
    expect(() => parseCorporaSpec(spec)).toThrow();
  });
});

describe('CorpusRegistry', () => {
  it('knows sotu and CORPORA entries, answers JSONL and folders from the store, shares concurrent loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-reg-'));
    writeFileSync(join(dir, 'c.jsonl'), '{"id":"p1","text":"The harbor bridge opened in 1932."}\n{"id":"p2","text":"Ferries cross the harbor."}\n');
    writeFileSync(join(dir, 'note.md'), 'A note about bridges.');
    const store = new SqlitePassageStore(':memory:');
    const reg = new CorpusRegistry({ corpora: `docs=${join(dir, 'c.jsonl')}`, store });
    reg.register('folder', dir);
    expect(reg.has('sotu')).toBe(true);
    expect(reg.names()).toEqual(['docs', 'folder', 'sotu']);
    const [a, b] = [reg.forTopic('docs', 'bridge'), reg.forTopic('docs', 'bridge')];
    expect(await a).toBe(await b);
    expect((await a).index.search('bridge', 5).map((h) => h.id)).toEqual(['p1']);
    expect((await reg.forTopic('folder', 'bridge')).index.passages.map((p) => p.id)).toEqual(['note.md#1']);
    await expect(reg.forTopic('nope', 'bridge')).rejects.toThrow(/unknown corpus/);
    expect(() => reg.register('x', join(dir, 'missing.jsonl'))).toThrow(/does not exist/);
    // Configured corpora live in the store, in their source's order, fingerprinted.
    expect(await store.passageIds('docs', 10)).toEqual(['p1', 'p2']);
    expect(await store.sourceFingerprint('docs')).toMatch(/^v1:/);
  });

  it('brings a configured corpus into the store once: an unchanged source is not read again, a changed one is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-reg-'));
    const file = join(dir, 'c.jsonl');
    writeFileSync(file, '{"id":"p1","text":"The harbor bridge opened in 1932."}\n');
    const store = new SqlitePassageStore(':memory:');
    await new CorpusRegistry({ builtins: false, corpora: `docs=${file}`, store }).passage('docs', 'p1');
    expect((await store.stats('docs')).passages).toBe(1);
    const written = await store.generation('docs');
    expect((await new CorpusRegistry({ builtins: false, corpora: `docs=${file}`, store }).passage('docs', 'p1'))?.text).toContain('1932');
    expect(await store.generation('docs')).toBe(written);
    writeFileSync(file, '{"id":"p2","text":"Ferries cross the harbor."}\n');
    const again = new CorpusRegistry({ builtins: false, corpora: `docs=${file}`, store });
    expect(await again.passage('docs', 'p1')).toBeUndefined();
    expect((await again.passage('docs', 'p2'))?.text).toBe('Ferries cross the harbor.');
  });
});

describe('CorpusRegistry cache of working indexes', () => {
  /** A corpus above `wholeCorpusMax` (so each topic gets a working index of its own) of three topics, 20 passages each. */
  async function registry(cacheBytes: number): Promise<CorpusRegistry> {
    const store = new SqlitePassageStore(':memory:');
    const reg = new CorpusRegistry({ builtins: false, store, cacheBytes, workingSet: { size: 100, perDocument: 100, feedbackPassages: 5, feedbackTerms: 3, wholeCorpusMax: 10 } });
    const topics = ['harbor bridge', 'volcano eruption', 'orchard apple'];
    const lines = topics.flatMap((t, i) => Array.from({ length: 20 }, (_, n) => JSON.stringify({ id: `${i}-${n}`, text: `The ${t} story number ${n} tells of ${t} ${'detail '.repeat(n % 5)}${n}.` })));
    const dir = mkdtempSync(join(tmpdir(), 'orrery-reg-'));
    writeFileSync(join(dir, 'c.jsonl'), lines.join('\n') + '\n');
    reg.register('big', join(dir, 'c.jsonl'));
    return reg;
  }

  it('keeps at most its budget of bytes, least recently used out first, and never less than the newest index', async () => {
    const one = (await (await registry(Infinity)).forTopic('big', 'harbor bridge')).index.bytes;
    // Room for two of the three topics' indexes (about the same size), not three.
    const reg = await registry(2.5 * one);
    const bridge = await reg.forTopic('big', 'harbor bridge');
    expect(bridge.index.size).toBe(20);
    const volcano = await reg.forTopic('big', 'volcano eruption');
    const two = reg.cachedBytes;
    expect(two).toBeGreaterThan(1.5 * one);
    // A repeat is the cached index, and makes it the most recently used.
    expect(await reg.forTopic('big', 'harbor bridge')).toBe(bridge);
    const orchard = await reg.forTopic('big', 'orchard apple');
    await new Promise((r) => setImmediate(r));
    expect(reg.cachedBytes).toBeLessThanOrEqual(2.5 * one);
    expect(await reg.forTopic('big', 'harbor bridge')).toBe(bridge);
    expect(await reg.forTopic('big', 'orchard apple')).toBe(orchard);
    expect(await reg.forTopic('big', 'volcano eruption')).not.toBe(volcano);

    const tiny = await registry(1);
    const first = await tiny.forTopic('big', 'harbor bridge');
    await new Promise((r) => setImmediate(r));
    expect(tiny.cachedBytes).toBe(first.index.bytes);
    expect(await tiny.forTopic('big', 'harbor bridge')).toBe(first);
  });
});
