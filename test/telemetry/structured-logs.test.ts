/**
 * Service processes log JSON lines through pino: a few lines at start-up saying where the coordinator listens and
 * with which engine, Redis and store; every line logged inside a step or a task carries its run and job ids (and
 * the trace id when tracing is on); LOG_LEVEL is honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnApp, waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { OtlpReceiver } from '../support/otlp-receiver';
import { dropPrefix, uniquePrefix } from '../support/test-env';

const linesOf = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${l}`);
      }
    });

describe('structured logs', () => {
  let stack: Stack;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    // LOG_LEVEL=debug shows the lines steps and tasks log about a run; tracing on adds their trace id.
    stack = await startStack('structured-logs', { workers: 1, env: { LOG_LEVEL: 'debug', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  it('writes JSON lines; lines about a run carry its run, job and trace ids', async () => {
    const { id } = await stack.client.submit({ topic: 'Kestrel River floods' });
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'done' });
    const lines = [stack.coordinator, ...stack.workers].flatMap((p) => linesOf(p.output()));
    for (const l of lines) expect(l).toMatchObject({ level: expect.any(String), time: expect.any(String), service: expect.stringMatching(/^orrery-(coordinator|worker)$/), msg: expect.anything() });
    const aboutRun = lines.filter((l) => l.run_id === id);
    expect(aboutRun.length, 'no line about the run').toBeGreaterThan(0);
    for (const l of aboutRun) expect(l).toMatchObject({ job_id: expect.any(String), trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // A line that names the run in its text is a line about the run.
    for (const l of lines.filter((x) => String(x.msg).includes(id))) expect(l.run_id, String(l.msg)).toBe(id);
  }, 120_000);
});

describe('start-up and LOG_LEVEL', () => {
  const prefix = uniquePrefix('log-level');
  afterAll(() => dropPrefix(prefix));

  it('says in two lines what listens where, with which engine, Redis and store; LOG_LEVEL=warn keeps them out', async () => {
    const port = String(40_000 + Math.floor(Math.random() * 10_000));
    const info = spawnApp('coordinator', { QUEUE_PREFIX: prefix, ENGINE: 'corpus', PORT: port, WEBHOOK_SECRET: 'a'.repeat(64) });
    await waitFor(() => info.output().includes('corpus store'), 60_000, 'the start-up lines');
    await info.kill();
    const startup = linesOf(info.output()).filter((l) => l.level === 'info');
    expect(startup.map((l) => l.msg)).toEqual([
      expect.stringMatching(new RegExp(`^listening on 127\\.0\\.0\\.1:${port} `)),
      expect.stringMatching(/^engine corpus, Redis redis:\/\/127\.0\.0\.1:6379, corpus store SQLite .*passages\.sqlite, log level info$/),
    ]);

    const quiet = spawnApp('coordinator', { QUEUE_PREFIX: prefix, ENGINE: 'corpus', PORT: port, LOG_LEVEL: 'warn', WEBHOOK_SECRET: 'a'.repeat(64) });
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false), 60_000, 'the quiet coordinator');
    await quiet.kill();
    expect(linesOf(quiet.output()).filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
  }, 150_000);
});
