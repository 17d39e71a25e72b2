/**
 * No run can be stuck: a step that fails for good ends its run `failed` with the reason, even when the run's
 * record holds text Redis's Lua cjson cannot decode (a lone surrogate, as a title sliced through an emoji leaves),
 * and cancel answers for such a run instead of a 500. Real coordinator and worker processes on real Redis.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/service-processes';
import { type Stack, startStack } from '../support/stack';
import { FIXTURE_CORPUS, redisClient } from '../support/test-env';

describe('runs that cannot be stuck', () => {
  let stack: Stack;
  const broken = join(mkdtempSync(join(tmpdir(), 'orrery-broken-')), 'broken.jsonl');
  beforeAll(async () => {
    writeFileSync(broken, 'this is not JSON\n');
    stack = await startStack('no-stuck', { workers: 1, env: { CORPORA: `kestrel=${FIXTURE_CORPUS},broken=${broken}` } });
  });
  afterAll(async () => stack?.stop());

  /** A run submitted while the steps are paused, its record then rewritten as `edit` says. */
  async function heldRun(edit: (run: Record<string, unknown>) => void): Promise<string> {
    await stack.queues.coordinator.pause();
    const { id } = await stack.client.submit({ topic: 'Kestrel River economy policy' });
    const redis = redisClient();
    const key = `${stack.prefix}:run:{${id}}`;
    const run = JSON.parse((await redis.get(key))!) as Record<string, unknown>;
    edit(run);
    await redis.set(key, JSON.stringify(run), 'KEEPTTL');
    redis.disconnect();
    return id;
  }

  it('a step that fails for good ends its run failed with the reason, whatever text the record holds', { timeout: 60_000 }, async () => {
    const id = await heldRun((run) => {
      run.topic = 'economy \ud800 policy';
      run.corpus = 'broken';
    });
    await stack.queues.coordinator.resume();
    await waitFor(async () => (await stack.client.run(id)).status === 'failed', 40_000, 'the run to end failed');
    const run = await stack.client.run(id);
    expect(run.errors.map((e) => e.message).join('\n')).toMatch(/^plan failed: .*not valid JSON/m);
    const events = await stack.follow(id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'failed' });
  });

  it('cancel works on a run whose record Lua cannot decode', async () => {
    const id = await heldRun((run) => {
      run.topic = 'economy \ud800 policy';
    });
    const res = await fetch(`${stack.coordinator.url}/v1/research/${id}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
    expect((await stack.client.run(id)).status).toBe('cancelled');
    await stack.queues.coordinator.resume();
    expect(await stack.follow(id).then((e) => e.at(-1))).toMatchObject({ type: 'run.finished', status: 'cancelled' });
  });

  it('a well-formed topic whose subtopic titles are cut through an emoji still ends', { timeout: 60_000 }, async () => {
    // The simulated planner titles subtopics "Aspect N of <topic>" cut at 300 code units: here through the eagle.
    const topic = `${'Kestrel River '.repeat(20)}Kestrel\u{1F985} eagles`;
    expect(`Aspect 1 of ${topic}`.codePointAt(299)).toBe(0x1f985);
    const { id } = await stack.client.submit({ topic, engine: 'simulated' });
    await waitFor(async () => ['done', 'failed'].includes((await stack.client.run(id)).status), 40_000, 'the run to end');
    // And the cut keeps the eagle whole or leaves it out: no title holds half of it (encodeURIComponent throws on that).
    for (const s of (await stack.client.run(id)).plan!.subtopics) expect(() => encodeURIComponent(s.title), s.title).not.toThrow();
  });
});
