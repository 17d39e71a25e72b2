/**
 * `npm run research` as a newcomer meets it, the real CLI process against real Redis: the JSON path prints only
 * JSON; the in-process service takes a queue prefix of its own and leaves only its run behind, expiring within
 * minutes; Ctrl-C cancels the run and exits 130 without a stack trace; on a terminal the report is laid out
 * for reading (code as blocks, no Markdown escapes).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { SPAWN_ENV, dropPrefix, REDIS_URL, redisClient, ROOT } from '../support/test-env';

const CLI = resolve(ROOT, 'apps/cli/dist/research.js');

const README = `# widget [![npm](https://img.shields.io/npm/v/widget.svg)](https://npmjs.com/widget)

A tiny server for &lt;widgets&gt;, see the [guide](https://widget.test/guide).

## Installation

\`\`\`sh
npm install widget

npx widget --port 3000
\`\`\`

## Configuration

The widget server binds to 127.0.0.1 by default, e.g. for local use, and listens on port 3000.
`;

interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** The CLI with only what a user's shell would pass: no QUEUE_PREFIX, no retention of its own. */
function research(args: string[], env: Record<string, string> = {}, command: (args: string[]) => [string, string[]] = (a) => [process.execPath, [CLI, ...a]]): CliRun {
  const [file, argv] = command(args);
  const child = spawn(file, argv, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL, NO_COLOR: '1', ...SPAWN_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  started.push(child);
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Every CLI started, so that a test that fails or times out leaves none running. */
const started: ChildProcess[] = [];

const prefixOf = (stderr: string): string => /queue prefix (\S+)\)/.exec(stderr)?.[1] ?? '(none)';

describe('npm run research', () => {
  let docs: string;
  const prefixes: string[] = [];
  beforeAll(() => {
    docs = mkdtempSync(join(tmpdir(), 'orrery-cli-docs-'));
    mkdirSync(join(docs, 'widget'));
    writeFileSync(join(docs, 'widget', 'README.md'), README);
  });
  afterAll(async () => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(docs, { recursive: true, force: true });
    for (const p of prefixes) await dropPrefix(p);
  });

  it('writes the report as DOCX with --format docx, prints the bill when the run ends, and refuses a format it does not know', async () => {
    const bad = research(['How do I install the widget?', '--format', 'exe']);
    expect(await bad.exit).toBe(2);
    expect(bad.stderr()).toMatch(/--format: one of markdown, json, html, docx, pdf/);
    const run = research(['How do I install the widget?', '--corpus', docs, '--format', 'docx']);
    // Bytes, not the helper's text: a DOCX is a zip.
    const chunks: Buffer[] = [];
    run.child.stdout!.removeAllListeners('data');
    run.child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    expect(await run.exit, run.stderr()).toBe(0);
    prefixes.push(prefixOf(run.stderr()));
    expect(run.stderr()).toMatch(/^\[orrery\] bill: Total \$0\.0000$/m);
    expect(run.stderr()).toMatch(/^\[orrery\] bill: Cache: saved \$0\.0000 against \$0\.0000 uncached$/m);
    const file = join(mkdtempSync(join(tmpdir(), 'orrery-cli-docx-')), 'report.docx');
    writeFileSync(file, Buffer.concat(chunks));
    const xml = execFileSync('unzip', ['-p', file, 'word/document.xml'], { encoding: 'utf8' });
    expect(xml).toContain('widget/README.md &gt; Installation');
  }, 180_000);

  it('prints only JSON with --json, under a queue prefix of its own, and leaves only its run, expiring within 10 minutes', async () => {
    const run = research(['How do I install the widget?', '--corpus', docs, '--json']);
    expect(await run.exit, run.stderr()).toBe(0);
    const prefix = prefixOf(run.stderr());
    prefixes.push(prefix);
    expect(prefix).toMatch(/^orrery-cli-[0-9a-f]{8}$/);
    const report = JSON.parse(run.stdout()) as { sources: { title: string }[] };
    expect(report.sources.map((s) => s.title)).toContain('widget/README.md > Installation');

    const redis = redisClient();
    try {
      const keys: string[] = [];
      // Its own keys, and its queues' (BullMQ's, under the hash-tagged `{prefix}:`).
      for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
        let cursor = '0';
        do {
          const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          keys.push(...found);
        } while (cursor !== '0');
      }
      expect(keys.length).toBeGreaterThan(0);
      // Nothing stays for good: the run's keys, and any a queue left (BullMQ's rate limiter), expire within 10 minutes.
      const lasting: string[] = [];
      for (const k of keys) {
        // -1: no expiry; -2: gone since the scan (a limiter key expires within its window), which is fine.
        const ttl = await redis.pttl(k);
        if (ttl === -1 || ttl > 600_000) lasting.push(`${k} (PTTL ${ttl})`);
      }
      expect(lasting).toEqual([]);
      expect(keys.filter((k) => k.startsWith(`${prefix}:`) && !k.startsWith(`${prefix}:run:`))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('cancels the run on Ctrl-C, says so, and exits 130 without a stack trace', async () => {
    const run = research(['How have presidents spoken of canals?', '--engine', 'simulated'], { SIMULATED_LATENCY_MS: '4000' });
    await waitFor(() => /round 1/.test(run.stderr()) || run.child.exitCode !== null, 90_000, 'the first round to start');
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(130);
    const stderr = run.stderr();
    const id = /interrupted: run (\S+) cancelled/.exec(stderr)?.[1];
    expect(id, stderr).toBeDefined();
    expect(stderr).not.toMatch(/\n\s+at \S/);
    const prefix = prefixOf(stderr);
    prefixes.push(prefix);
    const redis = redisClient();
    try {
      const raw = await redis.get(`${prefix}:run:{${id}}`);
      expect((JSON.parse(raw!) as { status: string }).status).toBe('cancelled');
    } finally {
      redis.disconnect();
    }
  });

  it('lays the report out on a terminal: code as an indented block, no Markdown escapes or entities', async () => {
    // `script` gives the CLI a pseudo-terminal as stdout, as a user's shell would.
    const quoted = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    // Left at the 0 columns a pseudo-terminal starts with: the progress spinner must not loop on it.
    const shell = (a: string[]): [string, string[]] => ['script', ['-qec', [process.execPath, CLI, ...a].map(quoted).join(' '), '/dev/null']];
    const run = research(['How do I install the widget?', '--corpus', docs], {}, shell);
    expect(await run.exit, run.stdout()).toBe(0);
    prefixes.push(prefixOf(run.stdout()));
    const out = run.stdout().replace(/\r/g, '');
    expect(out).toMatch(/\n {4}npm install widget\n\n {4}npx widget --port 3000\n/);
    expect(out).toContain('widget/README.md > Installation');
    expect(out).not.toMatch(/&gt;|&lt;|\\[*_#`[\]]|```/);
  });
});
