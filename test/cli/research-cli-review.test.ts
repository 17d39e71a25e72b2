/**
 * `npm run research -- --review` (issue 47): the real CLI process asks about the plan before anything is searched,
 * takes feedback in words from a piped stdin, shows the revised plan, and dispatches it once approved; `n` stops it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Report, Run } from '@orrery/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDatedCorpus, yearOfSource } from '../support/dated-corpus';
import { SPAWN_ENV, dropPrefix, REDIS_URL, redisClient, ROOT } from '../support/test-env';

const CLI = resolve(ROOT, 'apps/cli/dist/research.js');
const TOPIC = 'The Kestrel River: fishery, floods and navigation';

const started: ChildProcess[] = [];

/** The CLI with the answers piped to its stdin, as a script would give them. */
function research(args: string[], answers: string) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL, NO_COLOR: '1', ...SPAWN_ENV }, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  child.stdin!.end(answers);
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { stdout: () => out, stderr: () => err, exit };
}

const prefixOf = (stderr: string): string => /queue prefix (\S+)\)/.exec(stderr)?.[1] ?? '(none)';
const runIdOf = (stderr: string): string => /run (\S+) ended/.exec(stderr)?.[1] ?? '(none)';

/** The run as the CLI's own service kept it (the service is gone once the CLI exits; its run stays 10 minutes). */
async function storedRun(prefix: string, id: string): Promise<Run> {
  const redis = redisClient();
  try {
    return JSON.parse((await redis.get(`${prefix}:run:{${id}}`))!) as Run;
  } finally {
    redis.disconnect();
  }
}

describe('npm run research -- --review', () => {
  let dir: string;
  let corpus: string;
  const prefixes: string[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-cli-review-'));
    corpus = writeDatedCorpus(dir);
  });
  afterAll(async () => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    for (const p of prefixes) await dropPrefix(p);
  });

  it('prints the plan, revises it by the words piped in, prints the revision, and dispatches it when Enter approves', async () => {
    const run = research([TOPIC, '--corpus', corpus, '--review', '--json'], 'leave out the 1800s; add tariffs\n\n');
    expect(await run.exit, run.stderr()).toBe(0);
    const stderr = run.stderr();
    const prefix = prefixOf(stderr);
    prefixes.push(prefix);
    // Asked twice: the proposed plan, then the revised one with the years it leaves out.
    expect(stderr.match(/^Approve this plan\?/gm)).toHaveLength(2);
    expect(stderr).toMatch(/^\[orrery\] revised: searches leave out 1800–1899 \("leave out the 1800s"\); added "Tariffs"$/m);
    expect(stderr).toMatch(/^ {2}2\. Tariffs {2}\[tariffs\]\n {5}query: .*tariffs\n {2}years left out: 1800–1899$/m);
    expect(stderr).toMatch(/^\[orrery\] plan approved$/m);

    const stored = await storedRun(prefix, runIdOf(stderr));
    expect(stored.status).toBe('done');
    expect(stored.plan!.subtopics.map((s) => s.id)).toContain('tariffs');
    expect(stored.plan!.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    expect(stored.planRevisions!.map((r) => r.feedback)).toEqual(['leave out the 1800s; add tariffs']);
    const report = JSON.parse(run.stdout()) as Report;
    expect(report.sources.length).toBeGreaterThan(0);
    for (const s of report.sources) expect(yearOfSource(s.id)).toBeGreaterThanOrEqual(1900);
  }, 180_000);

  it('stops the run on "n", and refuses an --auto-approve that is not a number of seconds', async () => {
    const bad = research([TOPIC, '--auto-approve', 'soon'], '');
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toMatch(/^--auto-approve: /m);

    const run = research([TOPIC, '--corpus', corpus, '--review'], 'n\n');
    expect(await run.exit, run.stderr()).toBe(1);
    const stderr = run.stderr();
    prefixes.push(prefixOf(stderr));
    expect(stderr).toMatch(/^\[orrery\] plan stopped$/m);
    expect(stderr).toMatch(/^\[orrery\] run \S+ ended cancelled/m);
    expect((await storedRun(prefixOf(stderr), runIdOf(stderr))).plan).toBeUndefined();
  }, 180_000);
});
