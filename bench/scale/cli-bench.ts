import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../support/service-stack';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROOT = resolve(__dirname, '..', '..', '..');
const RESEARCH = join(ROOT, 'apps', 'cli', 'dist', 'research.js');

/**
 * A fixed amount of single-threaded JavaScript (sorting the same pseudo-random numbers): its time in this run is
 * the yardstick the CLI's times are divided by, so a loaded machine shows in the baseline as much as in the CLI.
 */
const BASELINE = `let a=1;const xs=new Float64Array(2e6);for(let r=0;r<4;r++){for(let i=0;i<xs.length;i++){a=(a*16807)%2147483647;xs[i]=a}xs.sort()}`;

interface Timed {
  seconds: number;
  peakMb: number;
  code: number;
}

/** Runs a command under /usr/bin/time (wall clock and peak RSS of the process tree's largest member). */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Timed> {
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIMED %e %M', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const m = /TIMED ([\d.]+) (\d+)\s*$/.exec(err);
      if (!m) return fail(new Error(`no timing from ${args.join(' ')}: ${err.slice(-500)}`));
      if (code !== 0) return fail(new Error(`${args.slice(0, 3).join(' ')}… exited ${code}: ${err.slice(-800)}`));
      done({ seconds: Number(m[1]), peakMb: Math.round(Number(m[2]) / 1024), code: code ?? -1 });
    });
  });
}

const fmt = (n: number, d = 1) => n.toFixed(d);

/**
 * For each corpus: on a data folder of its own, the README's CLI asks the first question (the
 * cold run: the ingest included), the same question again, then each other question once (the file unchanged), and
 * `--help` (what loading the CLI's modules costs). Each time is printed in seconds and as a multiple of the
 * baseline measured just before it.
 */
export async function runCliBench(corpora: readonly string[], questions: readonly string[]): Promise<void> {
  if (questions.length < 2) throw new Error('--cli needs two questions');
  console.log(`bench:scale --cli: node ${RESEARCH}; baseline = a fixed single-threaded sort (node -e), timed before each CLI run`);
  console.log('| passages file | run | wall s | baseline s | ratio to baseline | peak RSS MB |');
  console.log('|---|---|---|---|---|---|');
  for (const corpus of corpora) {
    const data = mkdtempSync(join(tmpdir(), 'orrery-cli-bench-'));
    // As a user runs it: no QUEUE_PREFIX (each run takes a prefix of its own and drops it), the CLI's own store.
    const env: NodeJS.ProcessEnv = { ...process.env, ENGINE: 'corpus', ORRERY_DATA_DIR: data, REDIS_URL, ORRERY_URL: '' };
    delete env.QUEUE_PREFIX;
    delete env.CORPUS_STORE;
    const runs: [string, string[]][] = [
      ['cold: first question, ingest included', [questions[0]!]],
      ['repeat: same question, file unchanged', [questions[0]!]],
      ...questions.slice(1).map((q, i): [string, string[]] => [`later question ${i + 2}, file unchanged`, [q]]),
      ['--help (module load only)', ['--help']],
    ];
    const later: number[] = [];
    try {
      for (const [name, args] of runs) {
        const baseline = await timed([process.execPath, '-e', BASELINE], env);
        const cliArgs = args[0] === '--help' ? [process.execPath, RESEARCH, '--help'] : [process.execPath, RESEARCH, ...args, '--corpus', corpus];
        const run = await timed(cliArgs, env).catch((err: Error) => {
          // --help exits 0; anything else failing is the figure's failure, shown as such.
          throw new Error(`${name}: ${err.message}`);
        });
        console.log(`| ${corpus} | ${name} | ${fmt(run.seconds)} | ${fmt(baseline.seconds, 2)} | ${fmt(run.seconds / baseline.seconds)} | ${run.peakMb} |`);
        if (name.startsWith('repeat') || name.startsWith('later')) later.push(run.seconds);
      }
      console.log(`${corpus}: questions after the first: median ${fmt(median(later))} s, ${later.filter((s) => s > 5).length} of ${later.length} over 5 s`);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }
}
