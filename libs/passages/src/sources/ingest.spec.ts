import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFolderPassages } from './ingest-folder';
import { parseJsonlPassages } from './ingest-jsonl';
import { displayName, loadSotuSpeeches, sotuPassages } from './ingest-sotu';
import { splitIntoPassages } from '../store/split-passages';

const words = (n: number, w = 'word'): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

describe('JSONL ingest', () => {
  it('keeps ids verbatim and falls back to the id as title', () => {
    const ps = parseJsonlPassages('{"id":"fw-2e21514bb8e4","text":"Alpha."}\n\n{"id":"Doc #7/β","text":"Beta.","title":"B","url":"https://x.test/b"}\n');
    expect(ps).toEqual([
      { id: 'fw-2e21514bb8e4', title: 'fw-2e21514bb8e4', text: 'Alpha.' },
      { id: 'Doc #7/β', title: 'B', url: 'https://x.test/b', text: 'Beta.' },
    ]);
  });
  it('names the line of a bad or duplicate row', () => {
    expect(() => parseJsonlPassages('{"id":"a","text":"x"}\n{"id":"a","text":"y"}')).toThrow(/^line 2: duplicate id/);
    expect(() => parseJsonlPassages('{"id":"a"}')).toThrow(/^line 1: needs/);
    expect(() => parseJsonlPassages('nope')).toThrow(/^line 1: not valid JSON/);
  });
});

describe('folder ingest', () => {
  it('splits .md/.txt files into passages with safe <path>#<n> ids and document titles', () => {
    const root = mkdtempSync(join(tmpdir(), 'orrery-folder-'));
    mkdirSync(join(root, 'sub dir'));
    writeFileSync(join(root, 'a.md'), `# Alpha notes\n\n${words(120)}.\n\n${words(120, 'x')}.\n`);
    writeFileSync(join(root, 'sub dir', 'b c.txt'), 'Just one short text.');
    writeFileSync(join(root, 'ignored.json'), '{}');
    const ps = readFolderPassages(root);
    expect(ps.map((p) => p.id)).toEqual(['a.md#1', 'a.md#2', 'sub_dir/b_c.txt#1']);
    expect(ps[0]!.title).toBe('a.md > Alpha notes');
    expect(ps[2]!.title).toBe('b c');
    expect(ps[2]!.text).toBe('Just one short text.');
  });
});

describe('passage splitting', () => {
  it('cuts long text between sentences into 100-250 word chunks', () => {
    const sentence = (i: number): string => `Sentence number ${i} says ${words(12, 's' + i)}.`;
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
    const chunks = splitIntoPassages(text, { targetWords: 150, maxWords: 250, minWords: 100 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      const n = c.split(/\s+/).length;
      expect(n).toBeGreaterThanOrEqual(100);
      expect(n).toBeLessThanOrEqual(250);
      expect(c.endsWith('.')).toBe(true);
    }
  });
});

describe('SOTU ingest', () => {
  it('names passages sotu-<year>-<surname>-pNNN and titles them "<year>, <name>"', () => {
    const speeches = loadSotuSpeeches().filter((s) => s.year === 1946 || s.year === 1790);
    const ps = sotuPassages(speeches);
    const truman = ps.filter((p) => p.id.startsWith('sotu-1946-truman-'));
    expect(truman.length).toBeGreaterThan(20);
    expect(truman[11]!.id).toBe('sotu-1946-truman-p012');
    expect(truman[0]!.title).toBe('1946, Harry S. Truman');
    expect(ps[0]!.id).toBe('sotu-1790-washington-p001');
    const lengths = truman.slice(0, -1).map((p) => p.text.split(/\s+/).length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(400);
    expect(displayName('Franklin D Roosevelt')).toBe('Franklin D. Roosevelt');
  });
});
