import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCorporaSpec } from './corpora-config';
import { CorpusRegistry } from './corpus-registry';

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
  it('knows sotu and CORPORA entries, loads JSONL and folders, shares concurrent loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-reg-'));
    writeFileSync(join(dir, 'c.jsonl'), '{"id":"p1","text":"The harbor bridge opened in 1932."}\n{"id":"p2","text":"Ferries cross the harbor."}\n');
    writeFileSync(join(dir, 'note.md'), 'A note about bridges.');
    const reg = new CorpusRegistry({ corpora: `docs=${join(dir, 'c.jsonl')}`, cacheDir: null });
    reg.register('folder', dir);
    expect(reg.has('sotu')).toBe(true);
    expect(reg.names()).toEqual(['docs', 'folder', 'sotu']);
    const [a, b] = [reg.load('docs'), reg.load('docs')];
    expect(a).toBe(b);
    const docs = await a;
    expect(docs.index.search('bridge', 5).map((h) => h.id)).toEqual(['p1']);
    expect((await reg.load('folder')).passages.map((p) => p.id)).toEqual(['note.md#1']);
    await expect(reg.load('nope')).rejects.toThrow(/unknown corpus/);
    expect(() => reg.register('x', join(dir, 'missing.jsonl'))).toThrow(/does not exist/);
  });
});
