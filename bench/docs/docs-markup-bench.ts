/**
 * Markup in what a docs report cites: builds a docs folder at run time from this machine's node_modules READMEs,
 * asks it questions through the real service (corpus engine), and counts the cited quotes that carry raw markup
 * outside whole code blocks (link or image syntax, HTML tags, entities, heading marks, backslash escapes, emphasis
 * marks), or a code fence that is cut or flattened into prose, and how the cited sources are titled (by file and heading, or by a bare heading, or with markup).
 *
 *   npm run bench:docs-markup -- [--readmes N] [--workers N] [--out <dir>]
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Report } from '@orrery/protocol';
import { readFlags } from '../support/flags';
import { startBenchStack } from '../support/service-stack';

const USAGE = 'usage: bench:docs-markup -- [--readmes N] [--workers N] [--out <dir>]';
const ROOT = resolve(__dirname, '..', '..', '..');

/** Questions a newcomer might ask of package docs; none tuned on. */
const QUESTIONS = [
  'How do I install and connect a Redis client?',
  'How do I render Markdown to HTML?',
  'How do I validate data against a schema?',
  'How do I show a spinner in the terminal?',
  'How do I retry failed jobs in a queue?',
  'How do I parse an HTML document?',
  'How do I set a timeout on an HTTP request?',
  'How do I run tests in watch mode?',
  'How do I escape HTML entities in a string?',
  'How do I parse command-line arguments?',
  'How do I read a configuration file?',
  'How do I add colors to terminal output?',
];

/** Markup a reader should never see in a quote or a title. */
const MARKUP: [string, RegExp][] = [
  ['link/image', /\]\(|!\[|\[!\[|\]\[[^\]]*\]/],
  ['html tag', /<\/?(?:a|img|p|div|br|hr|h[1-6]|span|sup|sub|b|i|em|strong|code|pre|details|summary|picture|source|table|tr|td|th|ul|ol|li|kbd)\b[^>]*>/i],
  ['entity', /&(?:[a-z]+|#\d+|#x[0-9a-f]+);/i],
  ['heading mark', /(?:^|\n)#{1,6}\s/],
  ['escape', /\\[*_`#[\]<>!|-]/],
  ['emphasis', /\*\*\S|\S\*\*|(?:^|\s)__\S/],
];

/** A whole fenced block: code, kept on purpose, whatever it holds. */
const CODE_BLOCK = /^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1[ \t]*$/gm;

/** A code fence that does not open and close a block on lines of its own (cut, or flattened into prose). */
function brokenFence(text: string): boolean {
  const lines = text.replace(CODE_BLOCK, '').split('\n');
  const fenceLines = lines.filter((l) => /^\s*(`{3,}|~{3,})/.test(l)).length;
  const inline = lines.some((l) => /\S.*```|```.*\S.*```/.test(l.replace(/^\s*`{3,}[\w+#.-]*\s*$/, '')));
  return fenceLines % 2 === 1 || inline;
}

function markupOf(text: string): string[] {
  const prose = text.replace(CODE_BLOCK, '');
  const found = MARKUP.filter(([, re]) => re.test(prose)).map(([name]) => name);
  if (brokenFence(text)) found.push('broken fence');
  return found;
}

/** Up to `limit` package READMEs from node_modules, each copied to <dir>/<package>/README.md. */
function buildDocs(limit: number): { dir: string; files: number } {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-docs-bench-'));
  const modules = join(ROOT, 'node_modules');
  const packages: string[] = [];
  for (const e of readdirSync(modules, { withFileTypes: true })) {
    if (!e.isDirectory() && !e.isSymbolicLink()) continue;
    if (e.name.startsWith('@')) {
      if (e.name === '@orrery') continue;
      for (const s of readdirSync(join(modules, e.name))) packages.push(`${e.name}/${s}`);
    } else if (!e.name.startsWith('.')) packages.push(e.name);
  }
  let files = 0;
  for (const pkg of packages.sort()) {
    if (files >= limit) break;
    let readme: string | undefined;
    try {
      readme = readdirSync(join(modules, pkg)).find((f) => /^readme\.(md|markdown)$/i.test(f));
    } catch {
      continue;
    }
    if (!readme) continue;
    mkdirSync(join(dir, pkg), { recursive: true });
    cpSync(join(modules, pkg, readme), join(dir, pkg, 'README.md'));
    files++;
  }
  return { dir, files };
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { values: ['--readmes', '--workers', '--out'] }, USAGE);
  const limit = f.int('--readmes') ?? 500;
  const out = f.value('--out');
  const docs = buildDocs(limit);
  const stack = await startBenchStack({ name: 'docs-markup', workers: f.int('--workers') ?? 2, env: { ENGINE: 'corpus', CORPORA: `docs=${docs.dir}`, DEFAULT_CORPUS: 'docs' } });
  const t0 = performance.now();
  let quotes = 0;
  let marked = 0;
  const kinds = new Map<string, number>();
  const titles = new Set<string>();
  const samples: string[] = [];
  try {
    for (const [i, question] of QUESTIONS.entries()) {
      const { id } = await stack.client.submit({ topic: question, corpus: 'docs' });
      const status = await stack.client.waitForEnd(id);
      if (status !== 'done') throw new Error(`run for "${question}" ended ${status}`);
      const report: Report = await stack.client.report(id);
      if (out) {
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, `q${String(i + 1).padStart(2, '0')}.json`), JSON.stringify(report, null, 2));
      }
      const cited = new Set<string>();
      for (const p of report.sections.flatMap((s) => s.paragraphs)) for (const c of p.citations) if (c.quote) cited.add(`${c.sourceId}\u0000${c.quote}`);
      for (const key of cited) {
        const quote = key.split('\u0000')[1]!;
        quotes++;
        const m = markupOf(quote);
        if (m.length) {
          marked++;
          for (const k of m) kinds.set(k, (kinds.get(k) ?? 0) + 1);
          if (samples.length < 6) samples.push(`${m.join('+')}: ${JSON.stringify(quote.slice(0, 140))}`);
        }
      }
      for (const s of report.sources) titles.add(s.title);
    }
  } finally {
    await stack.stop();
    rmSync(docs.dir, { recursive: true, force: true });
  }
  const all = [...titles];
  const byFile = all.filter((t) => / > /.test(t) && /\//.test(t.split(' > ')[0]!)).length;
  const titleMarkup = all.filter((t) => markupOf(t).length).length;
  const pct = (n: number, d: number): string => `${n}/${d} = ${d ? ((100 * n) / d).toFixed(1) : '0'}%`;
  console.log(`docs folder: ${docs.files} READMEs from node_modules; ${QUESTIONS.length} questions; ${Math.round((performance.now() - t0) / 1000)} s`);
  console.log(`| measure | value |\n| --- | --- |`);
  console.log(`| cited quotes carrying raw markup | ${pct(marked, quotes)} |`);
  console.log(`| of them, by kind | ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ') || '—'} |`);
  console.log(`| distinct cited source titles | ${all.length} |`);
  console.log(`| titled by file and heading ("pkg/README.md > Install") | ${pct(byFile, all.length)} |`);
  console.log(`| titles carrying raw markup | ${pct(titleMarkup, all.length)} |`);
  console.log(`\nsample titles: ${all.slice(0, 8).map((t) => JSON.stringify(t)).join(', ')}`);
  if (samples.length) console.log(`sample quotes with markup:\n  ${samples.join('\n  ')}`);
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
