/**
 * Reports whose shape follows the question, through the real service: comparisons, changes over time, surveys,
 * subjects the corpus does not hold, on the bundled speeches and on a folder of documents built at run time
 * from the READMEs of the installed packages (node_modules). Half the questions were tuned on, half held out
 * (the `split` of each line of bench/reports/report-questions.jsonl); the table gives both halves and all.
 *
 *   npm run bench:reports -- [--questions <file.jsonl>] [--docs-max N] [--concurrency N] [--workers N] [--out <dir>]
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Report } from '@orrery/protocol';
import { readJsonl } from '../coverage/score';
import { readFlags } from '../support/flags';
import { startBenchStack } from '../support/service-stack';
import { submitWithRetry } from '../support/submit-with-retry';
import { type ReportQuestion, type ReportScore, scoreReport, summarize } from './report-score';

const USAGE = 'usage: bench:reports -- [--questions <file.jsonl>] [--docs-max N] [--concurrency N] [--workers N] [--out <dir>]';

/** A folder of the installed packages' READMEs, one `<package>/README.md` each, in name order. */
export function buildDocsFolder(nodeModules: string, max: number): { dir: string; files: number } {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-bench-docs-'));
  const packages: string[] = [];
  for (const name of readdirSync(nodeModules).sort()) {
    if (name.startsWith('.') || name === '@orrery') continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nodeModules, name)).sort()) packages.push(`${name}/${sub}`);
    else packages.push(name);
  }
  let files = 0;
  for (const p of packages) {
    if (files >= max) break;
    const readme = ['README.md', 'readme.md', 'Readme.md', 'README.markdown'].map((f) => join(nodeModules, p, f)).find((f) => existsSync(f));
    if (!readme) continue;
    mkdirSync(join(dir, p.replace('/', '__')), { recursive: true });
    cpSync(readme, join(dir, p.replace('/', '__'), 'README.md'));
    files++;
  }
  return { dir, files };
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { values: ['--questions', '--docs-max', '--concurrency', '--workers', '--out'] }, USAGE);
  const questions = readJsonl<ReportQuestion>(resolve(f.value('--questions') ?? resolve(__dirname, '..', '..', 'reports', 'report-questions.jsonl')));
  const out = f.value('--out');
  const docs = buildDocsFolder(resolve(__dirname, '..', '..', '..', 'node_modules'), f.int('--docs-max') ?? 500);
  console.log(`docs corpus: ${docs.files} READMEs from node_modules in ${docs.dir}`);
  const stack = await startBenchStack({ name: 'reports', workers: f.int('--workers') ?? 2, env: { ENGINE: 'corpus', CORPORA: `docs=${docs.dir}` } });
  const t0 = performance.now();
  let scores: ReportScore[] = new Array(questions.length);
  const failed: string[] = [];
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < questions.length) {
        const i = next++;
        const q = questions[i]!;
        let report: Report;
        try {
          const { id } = await submitWithRetry(() => stack.client.submit({ topic: q.question, corpus: q.corpus }));
          const status = await stack.client.waitForEnd(id);
          if (status !== 'done') throw new Error(`run ended ${status}`);
          report = await stack.client.report(id);
        } catch (err) {
          // One failed run is reported and left out; the others still count.
          failed.push(`${q.question}: ${err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : String(err)}`);
          continue;
        }
        scores[i] = scoreReport(q, report);
        if (out) {
          mkdirSync(out, { recursive: true });
          writeFileSync(join(out, `q${String(i + 1).padStart(2, '0')}.json`), JSON.stringify(report, null, 2));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(f.int('--concurrency') ?? 3, questions.length) }, worker));
  } finally {
    await stack.stop();
    rmSync(docs.dir, { recursive: true, force: true });
  }
  scores = scores.filter((s) => s !== undefined);
  for (const e of failed) console.log(`FAILED  ${e}`);
  for (const s of scores) {
    const side = s.perSide ? ` sides ${s.perSide.join('/')}, ${s.sectionsWithAllSides}/${s.sections} sections with both` : '';
    const errs = s.numberErrors.length ? ` NUMBER ERRORS: ${s.numberErrors.join('; ')}` : '';
    const themes = s.question.themes?.length ? ` themes ${s.themesNamed}/${s.question.themes.length}, coherent ${s.coherentSections}/${s.titles}` : '';
    const subject = s.question.subject?.length ? ` on subject ${s.docQuotesOnSubject}/${s.docQuotes}` : '';
    const ung = s.ungrounded.length ? ` ungrounded: ${s.ungrounded.map((t) => JSON.stringify(t)).join(', ')}` : '';
    console.log(`${s.question.split.padEnd(7)} ${s.question.kind.padEnd(11)} cited ${String(s.cited).padStart(2)}${s.saysAbsent ? ' (says absent)' : ''}${side}${themes}${subject}${errs}${ung}  ${s.question.question}`);
  }
  const halves = { tune: scores.filter((s) => s.question.split === 'tune'), heldout: scores.filter((s) => s.question.split === 'heldout'), all: scores };
  const table = Object.fromEntries(Object.entries(halves).map(([k, v]) => [k, summarize(v)]));
  const rows = Object.keys(table.all!);
  console.log(`\n| | ${Object.keys(table).join(' | ')} |\n| --- | --- | --- | --- |`);
  for (const r of rows) console.log(`| ${r} | ${Object.values(table).map((t) => t[r]).join(' | ')} |`);
  console.log(`\n${questions.length} questions in ${Math.round((performance.now() - t0) / 1000)} s`);
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
